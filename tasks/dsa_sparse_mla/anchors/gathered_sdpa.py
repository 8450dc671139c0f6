"""Anchor: gather, then dense attention in library calls.

For a group of query rows at a time, the listed cache rows are gathered into a contiguous
[rows, topk, 576] bf16 tensor (FP8 records decoded through a 256-entry table and scaled, as the
reference does), and PyTorch's scaled_dot_product_attention attends with the row's h heads as
the query positions of one attention head against its topk gathered rows (multi-query
attention: keys the 576 columns, values the first 512), under a boolean mask of the valid
entries. SDPA returns no log-sum-exp, so lse comes from a bf16 batched product of the queries
with the gathered rows and an fp32 logsumexp over the valid entries: the extra score product is
the price of asking this path for lse.
"""

import torch
import torch.nn.functional as F

from reference import _gather_rows

# The gathered rows and the lse scores of one group stay below about this many bytes.
_GROUP_BYTES = 8 * 2**30


def run(q, kv_cache, indices, sm_scale):
    rows_q, h, d_qk = q.shape
    topk = indices.shape[1]
    num_kv = kv_cache.shape[0]
    valid = (indices >= 0) & (indices < num_kv)
    safe = torch.where(valid, indices, torch.zeros_like(indices)).long()
    # Per query row: the gathered rows (and, for FP8, the byte decode), and the lse scores.
    per_row = topk * d_qk * (2 + 4 + 4 + 8) + 3 * h * topk * 4
    group = max(1, _GROUP_BYTES // per_row)

    out = torch.empty((rows_q, h, 512), dtype=q.dtype, device=q.device)
    lse = torch.empty((rows_q, h), dtype=torch.float32, device=q.device)
    for first in range(0, rows_q, group):
        sel = slice(first, min(first + group, rows_q))
        kv = _gather_rows(kv_cache, safe[sel])  # [g, topk, 576] bf16
        mask = valid[sel][:, None, None, :]  # [g, 1, 1, topk]
        o = F.scaled_dot_product_attention(q[sel][:, None], kv[:, None], kv[:, None, :, :512],
                                           attn_mask=mask, scale=sm_scale)
        out[sel] = o[:, 0]
        scores = torch.matmul(q[sel], kv.transpose(1, 2)).float() * sm_scale  # [g, h, topk]
        scores = scores.masked_fill(~valid[sel][:, None, :], float("-inf"))
        lse[sel] = torch.logsumexp(scores, dim=-1)
    return out, lse
