"""Anchor: PyTorch's scaled_dot_product_attention over the gathered pages.

Every request's pages are gathered into one padded [batch, h_kv, tokens, head_dim] K and V
(fp8 pages dequantized to the query's dtype), positions past a request's length are masked,
and one SDPA call with grouped-query heads (enable_gqa, torch 2.5 and later; before that the KV
heads are repeated) lets PyTorch pick its attention kernel for the masked decode.
"""

import torch
import torch.nn.functional as F

_ENABLE_GQA = tuple(int(part) for part in torch.__version__.split(".")[:2]) >= (2, 5)


def _gather(cache, pages, scale, dtype):
    picked = cache[pages]  # [batch, pages, page_size, h_kv, head_dim]
    if picked.dtype == torch.uint8:
        # A uint8 cache holds fp8 e4m3fn bytes.
        picked = picked.view(torch.float8_e4m3fn)
    picked = picked.to(dtype)
    if scale != 1.0:
        picked = picked * scale
    batch, pages_per_request, page_size, h_kv, head_dim = picked.shape
    return picked.reshape(batch, pages_per_request * page_size, h_kv, head_dim).transpose(1, 2)


def run(q, k_cache, v_cache, block_table, seq_lens, sm_scale, k_scale, v_scale):
    batch, h_q, head_dim = q.shape
    num_pages, page_size, h_kv = k_cache.shape[0], k_cache.shape[1], k_cache.shape[2]
    max_pages = block_table.shape[1]
    lengths = seq_lens.long()[:, None]
    # Slots past a request's pages may hold anything: read a valid page there and mask it.
    used = torch.arange(max_pages, device=q.device)[None, :] * page_size < lengths
    pages = torch.where(used, block_table.long(), 0).clamp(0, num_pages - 1)
    valid = torch.arange(max_pages * page_size, device=q.device)[None, :] < lengths
    # Whatever sits past the length (even NaN) must reach neither a score nor the sum.
    outside = ~valid[:, None, :, None]
    k = _gather(k_cache, pages, k_scale, q.dtype).masked_fill(outside, 0.0)  # [batch, h_kv, tokens, d]
    v = _gather(v_cache, pages, v_scale, q.dtype).masked_fill(outside, 0.0)
    mask = valid[:, None, None, :]
    if _ENABLE_GQA:
        out = F.scaled_dot_product_attention(q[:, :, None, :], k, v, attn_mask=mask,
                                             scale=sm_scale, enable_gqa=True)
    else:
        group = h_q // h_kv
        out = F.scaled_dot_product_attention(q[:, :, None, :], k.repeat_interleave(group, dim=1),
                                             v.repeat_interleave(group, dim=1), attn_mask=mask,
                                             scale=sm_scale)
    return out.squeeze(2)
