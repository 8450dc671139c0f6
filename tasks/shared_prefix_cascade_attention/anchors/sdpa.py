"""Anchor: PyTorch's scaled_dot_product_attention over each request's concatenated keys.

Every request's page list (the shared prefix's pages, then its own) is gathered into one padded
[batch, h_kv, tokens, head_dim] K and V, hidden slots are zeroed and masked, and one SDPA call
with grouped-query heads (enable_gqa, torch 2.5 and later; before that the KV heads are
repeated) lets PyTorch pick its attention kernel for the masked decode. This is the library path
of a user who serves a shared prefix by repeating it in every request's list.
"""

import torch
import torch.nn.functional as F

_ENABLE_GQA = tuple(int(part) for part in torch.__version__.split(".")[:2]) >= (2, 5)


def _gather(cache, tables):
    picked = cache[tables]  # [batch, pages, page_size, h_kv, head_dim]
    batch, pages, page_size, h_kv, head_dim = picked.shape
    return picked.reshape(batch, pages * page_size, h_kv, head_dim).transpose(1, 2)


def run(q, k_cache, v_cache, prefix_block_table, suffix_block_table, suffix_lens, prefix_len,
        sm_scale):
    batch, h_q, head_dim = q.shape
    num_pages, page_size, h_kv = k_cache.shape[0], k_cache.shape[1], k_cache.shape[2]
    prefix_pages = prefix_block_table.shape[0]
    suffix_pages = suffix_block_table.shape[1]
    prefix_slots = prefix_pages * page_size
    tokens = prefix_slots + suffix_pages * page_size
    device = q.device

    lengths = suffix_lens.long()
    positions = torch.arange(tokens, device=device)[None, :]
    visible = torch.where(positions < prefix_slots, positions < prefix_len,
                          positions - prefix_slots < lengths[:, None])  # [batch, tokens]
    # Table entries past a request's last page may name any page: read page 0 there (masked).
    used = torch.arange(suffix_pages, device=device)[None, :] * page_size < lengths[:, None]
    own_pages = torch.where(used, suffix_block_table.long(), 0).clamp(0, num_pages - 1)
    tables = torch.cat([prefix_block_table.long()[None, :].expand(batch, -1), own_pages], dim=1)

    # Whatever sits in a hidden slot (even NaN) must reach neither a score nor the sum.
    hidden = ~visible[:, None, :, None]
    k = _gather(k_cache, tables).masked_fill(hidden, 0.0)  # [batch, h_kv, tokens, head_dim]
    v = _gather(v_cache, tables).masked_fill(hidden, 0.0)
    mask = visible[:, None, None, :]
    if _ENABLE_GQA:
        out = F.scaled_dot_product_attention(q[:, :, None, :], k, v, attn_mask=mask,
                                             scale=sm_scale, enable_gqa=True)
    else:
        group = h_q // h_kv
        out = F.scaled_dot_product_attention(q[:, :, None, :], k.repeat_interleave(group, dim=1),
                                             v.repeat_interleave(group, dim=1), attn_mask=mask,
                                             scale=sm_scale)
    return out.squeeze(2)
