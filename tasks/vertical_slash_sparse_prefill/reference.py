"""Vertical-and-slash sparse prefill attention, written the direct way: dense causal attention
under an explicit boolean mask built from the index sets.

Two boolean tables per query head mark the vertical key columns and the slash offsets. For a
chunk of query rows at a time, every query head scores the rows against all keys up to the
chunk's last row in fp32, the mask keeps key j for row i when j <= i and (j is a vertical column
or i - j is a slash offset), and an fp32 softmax and weighted sum of the values follow. The
output is rounded once to bf16.
"""

import torch

# The fp32 scores, probabilities and boolean masks of one chunk stay below about this many bytes.
_CHUNK_BYTES = 16 * 2**30


def attend_chunk(q_rows, k_seen, v_seen, rows, vertical_mask, slash_mask, sm_scale):
    """Masked attention of the query rows `rows` (q_rows [C, h_q, d]) over keys 0 .. e-1
    (k_seen, v_seen [e, h_kv, d]); returns fp32 [C, h_q, d]."""
    C, h_q, d = q_rows.shape
    e, h_kv = k_seen.shape[0], k_seen.shape[1]
    group = h_q // h_kv
    cols = torch.arange(e, device=q_rows.device)
    diff = rows[:, None] - cols[None, :]  # [C, e], i - j
    causal = diff >= 0
    on_slash = slash_mask[:, diff.clamp(min=0)]  # [h_q, C, e]
    on_vertical = vertical_mask[:, None, :e]  # [h_q, 1, e]
    keep = causal[None] & (on_slash | on_vertical)  # [h_q, C, e]

    # Query head hq uses key/value head hq // group.
    qg = q_rows.float().reshape(C, h_kv, group, d)
    scores = torch.einsum("cngd,end->ngce", qg, k_seen.float()) * sm_scale
    scores = scores.masked_fill(~keep.reshape(h_kv, group, C, e), float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    out = torch.einsum("ngce,end->cngd", probs, v_seen.float())
    return out.reshape(C, h_q, d)


def run(q, k, v, vertical_idx, slash_idx, sm_scale):
    T, h_q, d = q.shape
    device = q.device

    vertical_mask = torch.zeros((h_q, T), dtype=torch.bool, device=device)
    vertical_mask.scatter_(1, vertical_idx.long(), True)
    slash_mask = torch.zeros((h_q, T), dtype=torch.bool, device=device)
    slash_mask.scatter_(1, slash_idx.long(), True)

    # Per query row: fp32 scores and probabilities (8 bytes), three boolean masks and the int64
    # offsets, over up to T keys.
    per_row = T * (h_q * 11 + 8)
    chunk = max(1, _CHUNK_BYTES // per_row)

    out = torch.empty_like(q)
    for start in range(0, T, chunk):
        end = min(start + chunk, T)
        rows = torch.arange(start, end, device=device)
        out[start:end] = attend_chunk(q[start:end], k[:end], v[:end], rows, vertical_mask,
                                      slash_mask, sm_scale).to(out.dtype)
    return out
