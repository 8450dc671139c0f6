"""Anchor: the task's operator in library calls: PyTorch's scaled_dot_product_attention under a
boolean mask, one chunk of query rows at a time.

For each chunk of 512 query rows, the boolean mask over the keys up to the chunk's last row
(causal, and a vertical column or a slash offset) is built as the reference builds it, and one
SDPA call lets PyTorch pick its kernel for a masked attention. The key and value heads are
repeated to the query heads once per call, since not every masked SDPA backend takes grouped
heads. The mask is dense, so the cost stays quadratic in T.
"""

import torch
import torch.nn.functional as F

_CHUNK = 512


def run(q, k, v, vertical_idx, slash_idx, sm_scale):
    T, h_q, d = q.shape
    device = q.device
    vertical_mask = torch.zeros((h_q, T), dtype=torch.bool, device=device)
    vertical_mask.scatter_(1, vertical_idx.long(), True)
    slash_mask = torch.zeros((h_q, T), dtype=torch.bool, device=device)
    slash_mask.scatter_(1, slash_idx.long(), True)
    group = h_q // k.shape[1]
    kt = k.transpose(0, 1).repeat_interleave(group, dim=0).unsqueeze(0)  # [1, h_q, T, d]
    vt = v.transpose(0, 1).repeat_interleave(group, dim=0).unsqueeze(0)
    out = torch.empty_like(q)
    for start in range(0, T, _CHUNK):
        end = min(start + _CHUNK, T)
        rows = torch.arange(start, end, device=device)
        cols = torch.arange(end, device=device)
        diff = rows[:, None] - cols[None, :]
        keep = (diff >= 0)[None] & (slash_mask[:, diff.clamp(min=0)] | vertical_mask[:, None, :end])
        qc = q[start:end].transpose(0, 1).unsqueeze(0)  # [1, h_q, C, d]
        o = F.scaled_dot_product_attention(qc, kt[:, :, :end], vt[:, :, :end],
                                           attn_mask=keep.unsqueeze(0), scale=sm_scale)
        out[start:end] = o.squeeze(0).transpose(0, 1)
    return out
