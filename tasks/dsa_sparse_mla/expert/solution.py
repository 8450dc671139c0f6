"""Expert: token-level sparse MLA as multi-query attention over rows gathered on chip.

All heads of a query row share one index list and one 576-wide cache row per entry (the MQA
form of absorbed MLA, d_k = 576, d_v = 512). So a program owns a tile of 64 heads of one query
row and walks the row's list BLOCK_N entries at a time: it loads the entries, turns each valid
one into a row address, loads those rows straight from the cache into the tile (no gathered copy
in memory), decodes FP8 records in registers (e4m3 -> fp32, times the record's per-128 scale,
-> bf16, one 128-column piece per scale), and runs S = Q K^T (576 deep) and O += P V (512 wide)
with tl.dot, bf16 operands and fp32 accumulation, under a base-2 online softmax. The value
operand is the key tile's first 512 columns, already in registers. Invalid entries (below 0 or
at or past the cache's row count) are masked to -inf; duplicates are ordinary entries.

The 512 latent columns are handled as four 128-column pieces (the FP8 scale tiles): four query
pieces, four key/value pieces and four 64 x 128 fp32 accumulators per program.

Grid (head tiles, splits, query rows) with the head tile fastest, so the two tiles of a
128-head row run side by side and the second read of each gathered row hits the L2. When the
query rows times head tiles do not fill the SMs (small decode batches), each list is cut into
equal slices handled by separate programs that write normalized fp32 partial outputs and
log2-sum-exps, and `_combine_kernel` merges them with lse weights into o and lse. Otherwise the
attention kernel writes o and lse itself. The plan depends on shapes and the SM count only, so
the call can be captured in a CUDA graph.

PyTorch is used only to allocate outputs and scratch and to make views of the FP8 cache.
"""

import torch
import triton
import triton.language as tl

_LOG2_E = 1.4426950408889634
_LORA = 512
_ROPE = 64
_FP8_ROW_BYTES = 656
# Heads per attention program (the 64-row tensor-core tile of two warpgroups), entries per step,
# pipeline depth and warps. The 64 x 512 fp32 accumulator is 128 registers a thread over 8 warps.
# Shared memory per program: the 72 KiB query tile plus, per pipeline stage, 72 KiB of bf16 rows,
# or for FP8 records 40 KiB of codes and rotary values per stage and 64 KiB of decoded pieces
# staged as tensor-core operands (about 216 KiB either way). Should the FP8 variant not fit,
# 32 entries per step halve its staged bytes.
_BLOCK_H = 64
_BLOCK_N = 64
_FP8_BLOCK_N = 64
_NUM_STAGES = 2
_NUM_WARPS = 8
# Split planning: split a list only when the programs leave at least half of the SMs idle; slices
# of at least _MIN_CHUNK entries.
_MIN_CHUNK = 256
# The combine program: heads per program.
_COMBINE_H = 16


@triton.jit
def _load_piece(kv_ptr, kv_f32_ptr, row, valid, piece: tl.constexpr, KV_FP8: tl.constexpr):
    """Columns piece*128 .. piece*128+127 of the rows `row` as bf16 [BLOCK_N, 128]."""
    d = tl.arange(0, 128)
    if KV_FP8:
        # uint8 view: record r starts at byte r * 656; its fp32 view holds the 4 scales at
        # words r * 164 + 128 .. 131.
        codes = tl.load(kv_ptr + row[:, None] * 656 + piece * 128 + d[None, :],
                        mask=valid[:, None], other=0)
        scale = tl.load(kv_f32_ptr + row * 164 + 128 + piece, mask=valid, other=0.0)
        values = codes.to(tl.float8e4nv, bitcast=True).to(tl.float32)
        piece_values = (values * scale[:, None]).to(tl.bfloat16)
    else:
        piece_values = tl.load(kv_ptr + row[:, None] * 576 + piece * 128 + d[None, :],
                               mask=valid[:, None], other=0.0)
    return piece_values


@triton.jit
def _sparse_mla_kernel(
    q_ptr, kv_ptr, kv_f32_ptr, kv_bf16_ptr, idx_ptr, o_ptr, lse_ptr, part_o_ptr, part_lse_ptr,
    num_kv, topk, chunk, num_splits, H, score_scale_log2,
    stride_qt, stride_qh, stride_it, stride_ot, stride_oh, stride_lt,
    KV_FP8: tl.constexpr, SPLIT: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr,
):
    tile = tl.program_id(0)
    split = tl.program_id(1)
    t = tl.program_id(2).to(tl.int64)

    heads = tile * BLOCK_H + tl.arange(0, BLOCK_H)
    h_ok = heads < H
    d = tl.arange(0, 128)
    dr = tl.arange(0, 64)

    # The query tile: four 128-column latent pieces and the 64 rotary columns.
    q_row = q_ptr + t * stride_qt + heads[:, None] * stride_qh
    q0 = tl.load(q_row + d[None, :], mask=h_ok[:, None], other=0.0)
    q1 = tl.load(q_row + 128 + d[None, :], mask=h_ok[:, None], other=0.0)
    q2 = tl.load(q_row + 256 + d[None, :], mask=h_ok[:, None], other=0.0)
    q3 = tl.load(q_row + 384 + d[None, :], mask=h_ok[:, None], other=0.0)
    qr = tl.load(q_row + 512 + dr[None, :], mask=h_ok[:, None], other=0.0)

    m_i = tl.full([BLOCK_H], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc0 = tl.zeros([BLOCK_H, 128], dtype=tl.float32)
    acc1 = tl.zeros([BLOCK_H, 128], dtype=tl.float32)
    acc2 = tl.zeros([BLOCK_H, 128], dtype=tl.float32)
    acc3 = tl.zeros([BLOCK_H, 128], dtype=tl.float32)

    start = split * chunk
    end = tl.minimum(start + chunk, topk)
    idx_row = idx_ptr + t * stride_it
    for n0 in range(start, end, BLOCK_N):
        entries = n0 + tl.arange(0, BLOCK_N)
        in_list = entries < end
        idx = tl.load(idx_row + entries, mask=in_list, other=-1)
        valid = in_list & (idx >= 0) & (idx < num_kv)
        row = tl.where(valid, idx, 0).to(tl.int64)

        # One load of each listed row serves all heads of the tile, as keys and as values.
        c0 = _load_piece(kv_ptr, kv_f32_ptr, row, valid, 0, KV_FP8)
        c1 = _load_piece(kv_ptr, kv_f32_ptr, row, valid, 1, KV_FP8)
        c2 = _load_piece(kv_ptr, kv_f32_ptr, row, valid, 2, KV_FP8)
        c3 = _load_piece(kv_ptr, kv_f32_ptr, row, valid, 3, KV_FP8)
        if KV_FP8:
            # bf16 view: the rotary values of record r are halfwords r * 328 + 264 .. 327.
            kr = tl.load(kv_bf16_ptr + row[:, None] * 328 + 264 + dr[None, :],
                         mask=valid[:, None], other=0.0)
        else:
            kr = tl.load(kv_ptr + row[:, None] * 576 + 512 + dr[None, :],
                         mask=valid[:, None], other=0.0)

        s = tl.dot(q0, tl.trans(c0))
        s = tl.dot(q1, tl.trans(c1), s)
        s = tl.dot(q2, tl.trans(c2), s)
        s = tl.dot(q3, tl.trans(c3), s)
        s = tl.dot(qr, tl.trans(kr), s)
        s = s * score_scale_log2
        s = tl.where(valid[None, :], s, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        # A tile that has seen no valid entry yet keeps an empty state (no -inf - -inf).
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.exp2(m_i - m_safe)
        p = tl.exp2(s - m_safe[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        pb = p.to(tl.bfloat16)
        acc0 = tl.dot(pb, c0, acc0 * alpha[:, None])
        acc1 = tl.dot(pb, c1, acc1 * alpha[:, None])
        acc2 = tl.dot(pb, c2, acc2 * alpha[:, None])
        acc3 = tl.dot(pb, c3, acc3 * alpha[:, None])
        m_i = m_new

    has = l_i > 0.0
    inv_l = tl.where(has, 1.0 / tl.where(has, l_i, 1.0), 0.0)
    lse2 = tl.where(has, m_i + tl.log2(tl.where(has, l_i, 1.0)), float("-inf"))
    if SPLIT:
        prow = ((t * H + heads) * num_splits + split).to(tl.int64)
        base = part_o_ptr + prow[:, None] * 512 + d[None, :]
        tl.store(base, acc0 * inv_l[:, None], mask=h_ok[:, None])
        tl.store(base + 128, acc1 * inv_l[:, None], mask=h_ok[:, None])
        tl.store(base + 256, acc2 * inv_l[:, None], mask=h_ok[:, None])
        tl.store(base + 384, acc3 * inv_l[:, None], mask=h_ok[:, None])
        tl.store(part_lse_ptr + prow, lse2, mask=h_ok)
    else:
        base = o_ptr + t * stride_ot + heads[:, None] * stride_oh + d[None, :]
        tl.store(base, (acc0 * inv_l[:, None]).to(tl.bfloat16), mask=h_ok[:, None])
        tl.store(base + 128, (acc1 * inv_l[:, None]).to(tl.bfloat16), mask=h_ok[:, None])
        tl.store(base + 256, (acc2 * inv_l[:, None]).to(tl.bfloat16), mask=h_ok[:, None])
        tl.store(base + 384, (acc3 * inv_l[:, None]).to(tl.bfloat16), mask=h_ok[:, None])
        tl.store(lse_ptr + t * stride_lt + heads, lse2 * 0.6931471805599453, mask=h_ok)


@triton.jit
def _combine_kernel(
    part_o_ptr, part_lse_ptr, o_ptr, lse_ptr, num_splits, H,
    stride_ot, stride_oh, stride_lt,
    SPLITS_PAD: tl.constexpr, BLOCK_H: tl.constexpr,
):
    hb = tl.program_id(0)
    t = tl.program_id(1).to(tl.int64)
    heads = hb * BLOCK_H + tl.arange(0, BLOCK_H)
    h_ok = heads < H
    prow = (t * H + heads).to(tl.int64) * num_splits

    # Weights of the slices: 2^(lse_s - max_s lse_s), normalized; empty slices have lse -inf.
    sp = tl.arange(0, SPLITS_PAD)
    ok = h_ok[:, None] & (sp[None, :] < num_splits)
    lse = tl.load(part_lse_ptr + prow[:, None] + sp[None, :], mask=ok, other=float("-inf"))
    top = tl.max(lse, axis=1)
    top_safe = tl.where(top == float("-inf"), 0.0, top)
    total = tl.sum(tl.exp2(lse - top_safe[:, None]), axis=1)
    has = total > 0.0
    inv_total = tl.where(has, 1.0 / tl.where(has, total, 1.0), 0.0)

    dv = tl.arange(0, 512)
    acc = tl.zeros([BLOCK_H, 512], dtype=tl.float32)
    for s in range(0, num_splits):
        lse_s = tl.load(part_lse_ptr + prow + s, mask=h_ok, other=float("-inf"))
        weight = tl.exp2(lse_s - top_safe) * inv_total
        part = tl.load(part_o_ptr + (prow + s)[:, None] * 512 + dv[None, :],
                       mask=h_ok[:, None], other=0.0)
        acc += weight[:, None] * part
    tl.store(o_ptr + t * stride_ot + heads[:, None] * stride_oh + dv[None, :],
             acc.to(tl.bfloat16), mask=h_ok[:, None])
    lse_out = tl.where(has, (top_safe + tl.log2(tl.where(has, total, 1.0))) * 0.6931471805599453,
                       float("-inf"))
    tl.store(lse_ptr + t * stride_lt + heads, lse_out, mask=h_ok)


def plan_splits(rows, head_tiles, topk, num_sms, block_n=_BLOCK_N, min_chunk=_MIN_CHUNK):
    """(num_splits, chunk) from shapes only: as many equal slices of each list (of at least
    min_chunk entries) as rows * head_tiles programs can be multiplied by without passing one
    program per SM; one slice when the programs alone reach the SM count."""
    programs = rows * head_tiles
    splits = max(1, min(num_sms // programs, topk // min_chunk))
    chunk = triton.cdiv(triton.cdiv(topk, splits), block_n) * block_n
    return triton.cdiv(topk, chunk), chunk


def run(q, kv_cache, indices, sm_scale):
    rows, h, d_qk = q.shape
    topk = indices.shape[1]
    num_kv = kv_cache.shape[0]
    assert d_qk == _LORA + _ROPE and q.dtype == torch.bfloat16 and q.stride(2) == 1
    assert indices.dtype == torch.int32 and indices.stride(1) == 1 and indices.shape[0] == rows
    assert kv_cache.is_contiguous()
    kv_fp8 = kv_cache.dtype == torch.uint8
    if kv_fp8:
        assert kv_cache.shape[1] == _FP8_ROW_BYTES
        kv_f32 = kv_cache.view(torch.float32)  # [num_kv, 164]
        kv_bf16 = kv_cache.view(torch.bfloat16)  # [num_kv, 328]
    else:
        assert kv_cache.dtype == torch.bfloat16 and kv_cache.shape[1] == d_qk
        kv_f32 = kv_cache
        kv_bf16 = kv_cache
    device = q.device

    block_h = max(16, min(_BLOCK_H, triton.next_power_of_2(h)))
    num_warps = _NUM_WARPS if block_h == 64 else 4
    head_tiles = triton.cdiv(h, block_h)
    num_sms = torch.cuda.get_device_properties(device).multi_processor_count
    block_n = _FP8_BLOCK_N if kv_fp8 else _BLOCK_N
    num_splits, chunk = plan_splits(rows, head_tiles, topk, num_sms, block_n)
    assert rows <= 65535, "query rows are the third grid dimension"

    o = torch.empty((rows, h, _LORA), dtype=torch.bfloat16, device=device)
    lse = torch.empty((rows, h), dtype=torch.float32, device=device)
    split = num_splits > 1
    if split:
        part_o = torch.empty((rows * h * num_splits, _LORA), dtype=torch.float32, device=device)
        part_lse = torch.empty((rows * h * num_splits,), dtype=torch.float32, device=device)
    else:
        part_o, part_lse = o, lse  # not touched
    _sparse_mla_kernel[(head_tiles, num_splits, rows)](
        q, kv_cache, kv_f32, kv_bf16, indices, o, lse, part_o, part_lse,
        num_kv, topk, chunk, num_splits, h, float(sm_scale) * _LOG2_E,
        q.stride(0), q.stride(1), indices.stride(0), o.stride(0), o.stride(1), lse.stride(0),
        KV_FP8=kv_fp8, SPLIT=split, BLOCK_H=block_h, BLOCK_N=block_n,
        num_warps=num_warps, num_stages=_NUM_STAGES,
    )
    if split:
        _combine_kernel[(triton.cdiv(h, _COMBINE_H), rows)](
            part_o, part_lse, o, lse, num_splits, h,
            o.stride(0), o.stride(1), lse.stride(0),
            SPLITS_PAD=max(2, triton.next_power_of_2(num_splits)), BLOCK_H=_COMBINE_H,
            num_warps=4,
        )
    return o, lse
