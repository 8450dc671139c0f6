"""MLA decode attention, written the direct way: expand the latent cache into per-head keys and
values, then attend.

For a group of requests at a time: gather every page their block-table rows name into a
contiguous latent copy, up-project the whole copy with every head's w_uk and w_uv into per-head
keys [tokens, h, qk_nope_head_dim + qk_rope_head_dim] (the shared rotary key repeated for every
head) and values [tokens, h, v_head_dim], the way the model's non-absorbed attention caches
them, and take an fp32 softmax over the scaled scores with the positions past each query's
causal limit masked out. Lengths stay on the device, so every request is expanded to the block
table's full capacity and the loop needs no host round trip.
"""

import torch

# The expanded keys and values of one group of requests (in the cache dtype and in fp32) stay
# below about this many bytes.
_GROUP_BYTES = 24 * 2**30


def run(q_nope, q_rope, kv_cache, block_table, seq_lens, w_uk, w_uv, sm_scale):
    batch, s_q, h, nope_dim = q_nope.shape
    rope_dim = q_rope.shape[-1]
    num_pages, page_size, latent_dim = kv_cache.shape
    kv_lora_rank = latent_dim - rope_dim
    v_dim = w_uv.shape[1]
    max_pages = block_table.shape[1]
    tokens = max_pages * page_size
    device = q_nope.device

    positions = torch.arange(tokens, device=device)
    # Query i of a request sees its tokens 0 .. seq_lens[b] - s_q + i.
    limits = seq_lens.long()[:, None] - s_q + 1 + torch.arange(s_q, device=device)  # [batch, s_q]
    # Bytes per request: keys and values per token and head, twice in the cache dtype (the
    # product and the concatenation) and once in fp32.
    per_request = tokens * h * (nope_dim + rope_dim + v_dim) * 7
    group = max(1, _GROUP_BYTES // per_request)

    out = torch.empty((batch, s_q, h, v_dim), dtype=q_nope.dtype, device=device)
    for first in range(0, batch, group):
        rows = slice(first, min(first + group, batch))
        lengths = seq_lens[rows].long()
        # Slots past a request's pages may hold anything: read a valid page there and zero it.
        used = torch.arange(max_pages, device=device)[None, :] * page_size < lengths[:, None]
        pages = torch.where(used, block_table[rows].long(), 0).clamp(0, num_pages - 1)
        latent = kv_cache[pages].reshape(pages.shape[0], tokens, latent_dim)
        cached = (positions[None, :] < lengths[:, None])[:, :, None]
        latent = torch.where(cached, latent, torch.zeros((), dtype=latent.dtype, device=device))
        c = latent[..., :kv_lora_rank]
        k_rope = latent[..., kv_lora_rank:]

        # Per-head keys and values of every cached token, in the cache dtype, as a linear layer
        # of the model computes them.
        k_nope = torch.einsum("gtc,hdc->gthd", c, w_uk)
        v = torch.einsum("gtc,hdc->gthd", c, w_uv)
        k = torch.cat([k_nope, k_rope[:, :, None, :].expand(-1, -1, h, -1)], dim=-1)
        q = torch.cat([q_nope[rows], q_rope[rows]], dim=-1)

        scores = torch.einsum("gshd,gthd->gsht", q.float(), k.float()) * sm_scale
        visible = positions[None, None, :] < limits[rows][:, :, None]  # [group, s_q, tokens]
        scores = scores.masked_fill(~visible[:, :, None, :], float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        out[rows] = torch.einsum("gsht,gthd->gshd", probs, v.float()).to(out.dtype)
    return out
