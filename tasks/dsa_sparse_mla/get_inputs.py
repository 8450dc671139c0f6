"""Inputs of one sparse MLA attention call: queries, a latent cache (bf16 or the 656-byte FP8
record), and a top-k index list per query row.

The cache is paged: request b owns ceil(ctx_max / page_size) pages of page_size rows, and a
random permutation spreads every request's pages over the whole cache, so the rows one query
selects are scattered. Row r of the index list belongs to query token i of request b
(r = b * s_q + i); it sees the first len_b - s_q + i + 1 positions of its request. Its list is
what an indexer's top-k returns: the most recent LOCAL_WINDOW positions (which an indexer keeps
in practice) and a uniform sample of the older ones, in score order, each mapped through the
block table to its cache row. A row that sees fewer than topk positions lists all of them and
is padded with -1 at the end.

Quick workloads may set `dup_frac` and `invalid_frac`: that fraction of the entries (never the
first of a row) is replaced by a copy of the row's first entry, or by an invalid index (-1, or
a value at or past the cache's row count), anywhere in the row.
"""

import math

import torch

# Logits sm_scale * q.k have this standard deviation: a few dozen of the 2048 selected rows
# carry most of the weight, as in real attention, instead of a near-uniform average.
LOGIT_STD = 2.0
# The most recent positions every row selects (when it sees more than topk).
LOCAL_WINDOW = 128
# FP8 record of one cached token: 512 e4m3 bytes, 4 fp32 scales (one per 128 values), 64 bf16.
FP8_ROW_BYTES = 656
BF16_ROW_BYTES = 1152
E4M3_MAX = 448.0
# Rows of the cache generated per step (bounds the temporaries at the largest workloads).
_GEN_ROWS = 1 << 18


def seq_lens(batch, ctx_min, ctx_max):
    """Evenly spaced lengths from ctx_min to ctx_max, placed symmetrically so that they sum to
    batch * (ctx_min + ctx_max) / 2 (rounded down)."""
    if ctx_min == ctx_max or batch == 1:
        return [ctx_max] * batch
    span = ctx_max - ctx_min
    lengths = [0] * batch
    for i in range((batch + 1) // 2):
        low = ctx_min + (2 * i * span + (batch - 1)) // (2 * (batch - 1))
        lengths[i] = low
        lengths[batch - 1 - i] = ctx_min + ctx_max - low
    return lengths


def visible_counts(lengths, s_q):
    """Positions each query row sees, rows ordered b * s_q + i."""
    return [n - s_q + i + 1 for n in lengths for i in range(s_q)]


def work_counts(batch, s_q, ctx_min, ctx_max, topk):
    """(attended, kv_rows) of the work model: valid index entries over all rows, and the rows
    every request must read at least (its largest list)."""
    lengths = seq_lens(batch, ctx_min, ctx_max)
    attended = sum(min(v, topk) for v in visible_counts(lengths, s_q))
    kv_rows = sum(min(n, topk) for n in lengths)
    return attended, kv_rows


def e4m3_encode(x):
    """Round float32 values (|x| <= 448) to the nearest e4m3fn value, ties to even, and return
    the codes as uint8. Written with plain arithmetic so it runs on any PyTorch."""
    sign = (x < 0).to(torch.int32)
    a = x.abs().clamp(max=E4M3_MAX)
    # Exponent of the binade, with subnormals (below 2^-6) on the 2^-9 grid.
    exp = torch.floor(torch.log2(a.clamp(min=2.0 ** -6))).clamp(min=-6.0)
    quantum = torch.pow(2.0, exp - 3.0)
    r = torch.round(a / quantum) * quantum  # torch.round: half to even
    r = r.clamp(max=E4M3_MAX)
    # Re-derive the fields from the rounded value (rounding may reach the next binade).
    normal = r >= 2.0 ** -6
    e = torch.floor(torch.log2(r.clamp(min=2.0 ** -6)))
    mant_normal = torch.round((r / torch.pow(2.0, e) - 1.0) * 8.0)
    mant_sub = torch.round(r / 2.0 ** -9)
    exp_field = torch.where(normal, e + 7.0, torch.zeros_like(e)).to(torch.int32)
    mant = torch.where(normal, mant_normal, mant_sub).to(torch.int32)
    code = sign * 128 + exp_field * 8 + mant
    return code.to(torch.uint8)


def quantize_rows(latent):
    """[rows, 576] float32 -> [rows, 656] uint8 records: e4m3 codes of the first 512 values with
    one power-of-two fp32 scale per 128 values (the smallest that keeps the tile's largest
    magnitude within 448), then the last 64 values as bf16."""
    rows = latent.shape[0]
    nope = latent[:, :512].reshape(rows, 4, 128)
    amax = nope.abs().amax(dim=-1).clamp(min=1e-4)
    scales = torch.pow(2.0, torch.ceil(torch.log2(amax / E4M3_MAX)))  # [rows, 4]
    codes = e4m3_encode(nope / scales[:, :, None]).reshape(rows, 512)
    scale_bytes = scales.to(torch.float32).contiguous().view(torch.uint8)  # [rows, 16]
    rope_bytes = latent[:, 512:].to(torch.bfloat16).contiguous().view(torch.uint8)  # [rows, 128]
    return torch.cat([codes, scale_bytes, rope_bytes], dim=1)


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    batch = int(config["batch"])
    s_q = int(config["s_q"])
    h = int(config["h"])
    topk = int(config["topk"])
    lora = int(config["kv_lora_rank"])
    rope = int(config["qk_rope_head_dim"])
    page_size = int(config["page_size"])
    ctx_min = int(config["ctx_min"])
    ctx_max = int(config["ctx_max"])
    row_bytes = int(config["kv_row_bytes"])
    sm_scale = float(config["sm_scale"])
    dup_frac = float(config.get("dup_frac", 0.0))
    invalid_frac = float(config.get("invalid_frac", 0.0))
    if lora != 512 or rope != 64:
        raise ValueError("the cache formats hold 512 latent and 64 rotary values")
    if row_bytes not in (BF16_ROW_BYTES, FP8_ROW_BYTES):
        raise ValueError(f"kv_row_bytes must be {BF16_ROW_BYTES} (bf16) or {FP8_ROW_BYTES} (fp8)")
    if ctx_min < s_q:
        raise ValueError("every request must hold at least its s_q new tokens")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))
    rows_q = batch * s_q
    d_qk = lora + rope

    query_std = LOGIT_STD / (sm_scale * math.sqrt(d_qk))
    q = torch.randn((rows_q, h, d_qk), generator=gen, device=device).mul_(query_std)
    q = q.to(torch.bfloat16)

    # The latent is RMS-normalized before it is cached and the rotary keys are rotations of
    # unit-variance projections: N(0, 1) both.
    max_pages = (ctx_max + page_size - 1) // page_size
    num_pages = batch * max_pages
    num_kv = num_pages * page_size
    if row_bytes == BF16_ROW_BYTES:
        kv_cache = torch.empty((num_kv, d_qk), dtype=torch.bfloat16, device=device)
    else:
        kv_cache = torch.empty((num_kv, FP8_ROW_BYTES), dtype=torch.uint8, device=device)
    for first in range(0, num_kv, _GEN_ROWS):
        last = min(first + _GEN_ROWS, num_kv)
        latent = torch.randn((last - first, d_qk), generator=gen, device=device)
        if row_bytes == BF16_ROW_BYTES:
            kv_cache[first:last] = latent.to(torch.bfloat16)
        else:
            kv_cache[first:last] = quantize_rows(latent)

    block_table = torch.randperm(num_pages, generator=gen, device=device).view(batch, max_pages)
    order = torch.randperm(batch, generator=gen, device=device)
    lengths = torch.tensor(seq_lens(batch, ctx_min, ctx_max), device=device)[order]

    # Positions each row sees, and an indexer-like choice among them: recent ones first, older
    # ones at random, unseen ones never. The scores are distinct integers (random high bits, the
    # position in the low bits), so the choice and its order do not depend on how top-k breaks
    # ties; unseen positions score -1 and only ever fill the padding.
    width = ctx_max
    position_bits = max(1, (width - 1).bit_length())
    if position_bits > 28:
        raise ValueError("contexts above 2^28 tokens are not supported")
    visible = (lengths[:, None] - s_q + 1 + torch.arange(s_q, device=device)).reshape(rows_q)
    positions = torch.arange(width, device=device)
    score = torch.randint(0, 1 << 31, (rows_q, width), generator=gen, device=device)
    score = score * (1 << position_bits) + positions[None, :]
    recent = positions[None, :] >= visible[:, None] - LOCAL_WINDOW
    score = torch.where(recent, score + (1 << 60), score)
    score = torch.where(positions[None, :] < visible[:, None], score, torch.full_like(score, -1))
    picked = min(topk, width)
    top_score, pos = torch.topk(score, picked, dim=1)
    page = torch.gather(block_table.repeat_interleave(s_q, dim=0), 1, pos // page_size)
    rows = page * page_size + pos % page_size
    indices = torch.where(top_score >= 0, rows, torch.full_like(rows, -1))
    if picked < topk:
        pad = torch.full((rows_q, topk - picked), -1, dtype=indices.dtype, device=device)
        indices = torch.cat([indices, pad], dim=1)

    if dup_frac > 0 or invalid_frac > 0:
        u = torch.rand((rows_q, topk), generator=gen, device=device)
        u[:, 0] = 2.0  # the first entry of a row stays valid
        dup = u < dup_frac
        indices = torch.where(dup, indices[:, :1].expand(-1, topk), indices)
        bad = (u >= dup_frac) & (u < dup_frac + invalid_frac)
        past_end = num_kv + (torch.rand((rows_q, topk), generator=gen, device=device) * 1000)
        past_end = past_end.to(indices.dtype)
        coin = torch.rand((rows_q, topk), generator=gen, device=device) < 0.5
        invalid = torch.where(coin, torch.full_like(indices, -1), past_end)
        indices = torch.where(bad, invalid, indices)

    return [q, kv_cache, indices.to(torch.int32).contiguous(), sm_scale]
