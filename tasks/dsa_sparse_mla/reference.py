"""Sparse MLA attention, written the direct way: gather the selected cache rows, dequantize
them, and run an ordinary masked softmax attention over them.

For a group of query rows at a time: copy the cache rows that their index lists name into a
[rows, topk, 576] bf16 tensor (for the FP8 cache: gather the 656-byte records, decode every
e4m3 byte through a 256-entry table and multiply by its tile's scale), compute the scores of
every head against every gathered row in fp32, mask the invalid entries, and take an fp32
softmax and the weighted sum of the first 512 columns. Invalid entries are replaced by row 0
for the gather and masked out afterwards, so the call needs no host round trip.
"""

import torch

# The gathered rows and the scores of one group of query rows stay below about this many bytes.
_GROUP_BYTES = 8 * 2**30
_LORA = 512


def _e4m3_table(device):
    """The value of every e4m3fn code (sign, 4 exponent bits with bias 7, 3 mantissa bits;
    exponent 0 is subnormal; code 0x7f / 0xff is NaN)."""
    codes = torch.arange(256, device=device)
    magnitude = codes % 128
    exponent = torch.div(magnitude, 8, rounding_mode="floor")
    mantissa = (magnitude % 8).float()
    normal = (1.0 + mantissa / 8.0) * torch.pow(2.0, exponent.float() - 7.0)
    subnormal = mantissa / 8.0 * 2.0 ** -6
    value = torch.where(exponent == 0, subnormal, normal)
    value = torch.where(codes >= 128, -value, value)
    return torch.where(magnitude == 127, torch.full_like(value, float("nan")), value)


def _gather_rows(kv_cache, rows):
    """The cache rows `rows` ([g, topk] int64) as [g, topk, 576] bf16."""
    if kv_cache.dtype == torch.bfloat16:
        return kv_cache[rows]
    records = kv_cache[rows]  # [g, topk, 656] uint8
    g, topk = rows.shape
    table = _e4m3_table(kv_cache.device)
    values = table[records[..., :_LORA].long()].reshape(g, topk, 4, 128)
    scales = records[..., _LORA:_LORA + 16].contiguous().view(torch.float32)  # [g, topk, 4]
    latent = (values * scales[..., None]).reshape(g, topk, _LORA).to(torch.bfloat16)
    rope = records[..., _LORA + 16:].contiguous().view(torch.bfloat16)  # [g, topk, 64]
    return torch.cat([latent, rope], dim=-1)


def run(q, kv_cache, indices, sm_scale):
    rows_q, h, d_qk = q.shape
    topk = indices.shape[1]
    num_kv = kv_cache.shape[0]
    device = q.device

    valid = (indices >= 0) & (indices < num_kv)
    safe = torch.where(valid, indices, torch.zeros_like(indices)).long()

    # Per query row: the gathered rows in bf16 and fp32 (plus the byte decode for FP8), and
    # three fp32 [h, topk] score-sized tensors.
    per_row = topk * d_qk * (2 + 4 + 4 + 8) + 3 * h * topk * 4
    group = max(1, _GROUP_BYTES // per_row)

    out = torch.empty((rows_q, h, _LORA), dtype=q.dtype, device=device)
    lse = torch.empty((rows_q, h), dtype=torch.float32, device=device)
    for first in range(0, rows_q, group):
        sel = slice(first, min(first + group, rows_q))
        kv = _gather_rows(kv_cache, safe[sel]).float()  # [g, topk, 576]
        scores = torch.einsum("ghd,gkd->ghk", q[sel].float(), kv) * sm_scale
        scores = scores.masked_fill(~valid[sel][:, None, :], float("-inf"))
        # A row without any valid entry gets o = 0 and lse = -inf.
        top = scores.amax(dim=-1, keepdim=True)
        top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
        weights = torch.exp(scores - top)
        total = weights.sum(dim=-1, keepdim=True)
        o = torch.einsum("ghk,gkd->ghd", weights, kv[..., :_LORA])
        o = torch.where(total > 0, o / total.clamp(min=1e-30), torch.zeros_like(o))
        out[sel] = o.to(out.dtype)
        lse[sel] = (top + torch.log(total)).squeeze(-1)
    return out, lse
