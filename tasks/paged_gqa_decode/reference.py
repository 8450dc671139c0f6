"""Paged GQA decode attention, written the direct way.

For each request: gather its pages into contiguous K and V, repeat every KV head for the query
heads that share it, and take an fp32 softmax over the scaled scores. A Python loop walks the
ragged requests one by one.
"""

import torch


def _gather(cache, pages, length):
    """Contiguous [length, h_kv, head_dim] fp32 copy of one request's pages."""
    picked = cache[pages]
    if picked.dtype == torch.uint8:
        # A uint8 cache holds fp8 e4m3fn bytes.
        picked = picked.view(torch.float8_e4m3fn)
    h_kv, head_dim = cache.shape[2], cache.shape[3]
    return picked.reshape(-1, h_kv, head_dim)[:length].to(torch.float32)


def run(q, k_cache, v_cache, block_table, seq_lens, sm_scale, k_scale, v_scale):
    batch, h_q, head_dim = q.shape
    page_size, h_kv = k_cache.shape[1], k_cache.shape[2]
    if h_q % h_kv != 0:
        raise ValueError("h_q must be a multiple of h_kv")
    group = h_q // h_kv

    out = torch.empty_like(q)
    lengths = seq_lens.tolist()
    for b in range(batch):
        length = int(lengths[b])
        num_pages = (length + page_size - 1) // page_size
        pages = block_table[b, :num_pages].long()
        k = _gather(k_cache, pages, length) * k_scale
        v = _gather(v_cache, pages, length) * v_scale
        # Query head h reads KV head h // group.
        k = k.repeat_interleave(group, dim=1)          # [length, h_q, head_dim]
        v = v.repeat_interleave(group, dim=1)
        scores = torch.einsum("hd,thd->ht", q[b].to(torch.float32), k) * sm_scale
        probs = torch.softmax(scores, dim=-1)          # [h_q, length]
        out[b] = torch.einsum("ht,thd->hd", probs, v).to(q.dtype)
    return out
