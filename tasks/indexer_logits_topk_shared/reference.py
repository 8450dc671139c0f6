"""Lightning-indexer scores and exact top-k, written the direct way.

For a chunk of queries at a time: gather every page their requests' block-table rows name into a
contiguous copy of the keys, dequantize the FP8 codes to float32 (a 256-entry table of the e4m3
values) and apply the per-token scales, take every (query, head, key) dot product with einsum into
a [queries, heads, keys] float32 tensor, apply ReLU, multiply by the per-head weights and sum over
the heads. Positions outside a query's [ks, ke) get -inf. The selection is a stable descending sort
of every row (equal scores keep the lower position first, the task's tie rule), whose first topk
positions are then sorted ascending; positions that do not exist (rows with fewer than topk keys)
become -1 at the end. Lengths stay on the device, so every query is scored over its request's full
block-table capacity and the loop needs no host round trip.
"""

import torch

# Dequantized keys, their int64 codes and the score tensors of one chunk stay below this many bytes.
_CHUNK_BYTES = 3 * 2**30


def e4m3_table(device):
    """The float32 value of every e4m3fn code (sign, 4 exponent bits with bias 7, 3 mantissa bits;
    codes 0x7f and 0xff are NaN), computed on the device."""
    code = torch.arange(256, device=device)
    sign = 1.0 - 2.0 * ((code >> 7) & 1).to(torch.float32)
    exp = ((code >> 3) & 0xF).to(torch.float32)
    man = (code & 0x7).to(torch.float32)
    normal = (1.0 + man / 8.0) * torch.pow(2.0, exp - 7.0)
    subnormal = man * 2.0 ** -9
    values = sign * torch.where(exp == 0, subnormal, normal)
    return torch.where((code & 0x7F) == 0x7F, torch.full_like(values, float("nan")), values)


def select_rows(q_rows, w_rows, pages, ks_rows, ke_rows, k_cache, k_scale, table, topk):
    """Scores and top-k of a chunk of queries whose requests' block-table rows are `pages`."""
    n, heads, head_dim = q_rows.shape
    page_size = k_cache.shape[1]
    width = pages.shape[1] * page_size
    keep = min(topk, width)
    positions = torch.arange(width, device=q_rows.device)

    codes = k_cache[pages].reshape(n, width, head_dim)                       # gathered copy
    keys = table[codes.long()] * k_scale[pages].reshape(n, width, 1)          # float32
    queries = table[q_rows.long()]                                            # [n, heads, 128]

    dots = torch.einsum("nhd,nwd->nhw", queries, keys)                        # [n, heads, width]
    scores = (torch.relu(dots) * w_rows[:, :, None]).sum(dim=1)              # [n, width]
    inside = (positions[None, :] >= ks_rows[:, None].long()) & \
             (positions[None, :] < ke_rows[:, None].long())
    scores = scores.masked_fill(~inside, float("-inf"))

    order = torch.sort(scores, dim=1, descending=True, stable=True)
    best = order.indices[:, :keep]
    valid = order.values[:, :keep] > float("-inf")
    chosen = torch.where(valid, best, torch.full_like(best, width))
    chosen = torch.sort(chosen, dim=1).values                                 # ascending, pads last
    chosen = torch.where(chosen < width, chosen, torch.full_like(chosen, -1))
    if keep < topk:
        pad = torch.full((n, topk - keep), -1, dtype=chosen.dtype, device=chosen.device)
        chosen = torch.cat([chosen, pad], dim=1)
    return chosen.to(torch.int32)


def chunk_size(width, heads, head_dim):
    """Queries per chunk: the gathered codes, their int64 indices, the float32 keys and the
    [n, heads, width] score tensors of one chunk stay below _CHUNK_BYTES."""
    per_query = width * (head_dim * (4 + 8 + 1) + heads * 4 * 3 + 32)
    return max(1, _CHUNK_BYTES // per_query)


def run_chunks(select, q, k_cache, k_scale, weights, block_table, query_req, ks, ke, topk):
    """The reference's loop over chunks of queries, with `select` scoring and selecting one."""
    tokens, heads, head_dim = q.shape
    width = block_table.shape[1] * k_cache.shape[1]
    table = e4m3_table(q.device)
    chunk = chunk_size(width, heads, head_dim)
    out = torch.empty((tokens, topk), dtype=torch.int32, device=q.device)
    for first in range(0, tokens, chunk):
        rows = slice(first, min(first + chunk, tokens))
        pages = block_table[query_req[rows].long()].long()                   # [n, max_pages]
        out[rows] = select(q[rows], weights[rows], pages, ks[rows], ke[rows], k_cache, k_scale,
                           table, topk)
    return out


def run(q, k_cache, k_scale, weights, block_table, query_req, ks, ke, topk):
    return run_chunks(select_rows, q, k_cache, k_scale, weights, block_table, query_req, ks, ke,
                      topk)
