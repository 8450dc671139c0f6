"""Paged GQA decode attention, written the direct way.

For each request: gather every page its block-table row names into contiguous K and V, repeat
every KV head for the query heads that share it, and take an fp32 softmax over the scaled
scores, with the positions past the request's length masked out. A Python loop walks the
requests one by one; lengths stay on the device, so the loop needs no host round trip.
"""

import torch


def _gather(cache, pages):
    """Contiguous [pages * page_size, h_kv, head_dim] fp32 copy of the given pages."""
    picked = cache[pages]
    if picked.dtype == torch.uint8:
        # A uint8 cache holds fp8 e4m3fn bytes.
        picked = picked.view(torch.float8_e4m3fn)
    h_kv, head_dim = cache.shape[2], cache.shape[3]
    return picked.reshape(-1, h_kv, head_dim).to(torch.float32)


def run(q, k_cache, v_cache, block_table, seq_lens, sm_scale, k_scale, v_scale):
    batch, h_q, head_dim = q.shape
    num_pages, page_size, h_kv = k_cache.shape[0], k_cache.shape[1], k_cache.shape[2]
    if h_q % h_kv != 0:
        raise ValueError("h_q must be a multiple of h_kv")
    group = h_q // h_kv
    max_pages = block_table.shape[1]
    positions = torch.arange(max_pages * page_size, device=q.device)

    out = torch.empty_like(q)
    for b in range(batch):
        length = seq_lens[b].long()
        # Slots past the request's pages may hold anything: read a valid page there and mask it.
        used = torch.arange(max_pages, device=q.device) * page_size < length
        pages = torch.where(used, block_table[b].long(), 0).clamp(0, num_pages - 1)
        valid = (positions < length)[:, None, None]
        k = _gather(k_cache, pages) * k_scale
        # Whatever sits past the length (even NaN) must not reach the sum through a zero weight.
        v = torch.where(valid, _gather(v_cache, pages) * v_scale, 0.0)
        # Query head h reads KV head h // group.
        k = k.repeat_interleave(group, dim=1)          # [tokens, h_q, head_dim]
        v = v.repeat_interleave(group, dim=1)
        scores = torch.einsum("hd,thd->ht", q[b].to(torch.float32), k) * sm_scale
        scores = scores.masked_fill(~valid[:, 0, 0][None, :], float("-inf"))
        probs = torch.softmax(scores, dim=-1)          # [h_q, tokens]
        out[b] = torch.einsum("ht,thd->hd", probs, v).to(q.dtype)
    return out
