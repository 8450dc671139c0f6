"""Expert: chunked gated delta rule (WY/UT form) with the state pass fused with the outputs and,
when heads are few, the sequence cut into segments whose affine state maps are composed.

Within a chunk of C = 64 tokens with cumulative log decays G_i (G_i = g_1 + ... + g_i inside the
chunk), the chunk's C rank-one delta updates collapse into one lower triangular system:

    A = strict_tril(diag(beta) (K K^T * exp(G_i - G_j))),  T = (I + A)^-1
    W = T diag(beta exp(G)) K,  U = T diag(beta) V
    V_new = U - W h                              (the chunk's corrected values)
    O = scale ((Q * exp(G)) h + (Q K^T * exp(G_i - G_j), causal) V_new)
    h <- exp(G_last) h + (K * exp(G_last - G))^T V_new

so a sequence takes T / 64 dependent steps of 64-row tensor-core products instead of T dependent
rank-one steps. Kernels of one call:

1. `_prepare_kernel`, grid (chunk slots, h_v): per chunk and value head, the gate cumsum, the
   ten 16 x 16 blocks of beta K K^T with their decays, the triangular inverse (diagonal blocks
   by row substitution in registers, the blocks below them by block products), and W, U
   (bf16) and G (fp32) written to scratch. Everything here is independent of the state, so all
   chunks run in parallel.
2. `_chunk_pass_kernel`, grid (value-column blocks, h_v, segments): walks its segment's chunks in
   order with the fp32 state slice d_k x BV in registers: V_new = U - W h, the chunk's outputs
   from h and V_new (stored as bf16 o), and the state update. With one segment per sequence it
   starts from initial_state and writes final_state itself.
3. When the device would otherwise be starved (few sequence-head pairs: n_seqs h_v d_v / BV
   programs below the SM count), every sequence is cut into segments of seg_chunks chunks and
   two kernels run before the pass: `_segment_map_kernel` runs the same chunk recurrence on the
   augmented state [D | M] from [0 | I] (no value input in the M columns), which gives each
   segment's map h_out = M h_in + D, all segments in parallel; `_segment_scan_kernel` composes
   the maps along each sequence from initial_state, writes every segment's starting state and
   final_state. The pass (2) then runs all segments in parallel from those starts.

Sequences are read in place: every kernel finds its sequence, chunk or segment from cu_seqlens
on the device; grids and scratch are sized from shapes (a packed axis of T tokens holds at most
T // 64 + n_seqs chunks). PyTorch is used only to allocate outputs and scratch and make views.
"""

import torch
import triton
import triton.language as tl

_CHUNK = 64
_SUB = 16  # the triangular solve's diagonal blocks
# Value columns of the state per pass program (fp32 d_k x BV state slice in registers).
_BV = 64
_PASS_WARPS = 8
_PASS_STAGES = 2
_PREP_WARPS = 4
# Segment planning: segments are used when fewer than one wave of pass programs exists; they are
# cut so that about _CP_WAVES waves of pass programs exist, never shorter than _MIN_SEG_CHUNKS.
_CP_WAVES = 2
_MIN_SEG_CHUNKS = 8
_SCAN_WARPS = 8
# The composition of segment maps multiplies fp32 matrices: 3xTF32 keeps it near fp32 accuracy.
_SCAN_PRECISION = "tf32x3"
_TRIL_PRECISION = "ieee"


@triton.jit
def _locate(cu_ptr, n_seqs, slot, ITEM_TOKENS, N_PAD: tl.constexpr):
    """Slots are runs of ITEM_TOKENS tokens from the start of each sequence (the last one of a
    sequence may be shorter), numbered over all sequences in order. Returns the sequence of
    slot `slot` (n_seqs when there is no such slot), its first and end token, and the slot's
    index within its sequence."""
    s = tl.arange(0, N_PAD)
    ok = s < n_seqs
    starts = tl.load(cu_ptr + s, mask=ok, other=0)
    ends = tl.load(cu_ptr + s + 1, mask=ok, other=0)
    counts = tl.where(ok, (ends - starts + ITEM_TOKENS - 1) // ITEM_TOKENS, 0)
    first = tl.cumsum(counts, 0) - counts
    seq = tl.sum((ok & (first + counts <= slot)).to(tl.int32), 0)
    pick = s == seq
    bos = tl.sum(tl.where(pick, starts, 0), 0)
    eos = tl.sum(tl.where(pick, ends, 0), 0)
    local = slot - tl.sum(tl.where(pick, first, 0), 0)
    return seq, bos, eos, local


@triton.jit
def _rows(base_ptr, tok, valid, row_stride, D: tl.constexpr):
    """[len(tok), D] tile: row r is base_ptr + tok[r] * row_stride + (0 .. D-1); zero where
    not valid."""
    cols = tl.arange(0, D)
    return tl.load(base_ptr + tok[:, None] * row_stride + cols[None, :], mask=valid[:, None],
                   other=0.0)


@triton.jit
def _decayed_block(a, g_row, g_col, beta_row, valid_row, valid_col, DIAG: tl.constexpr,
                   SUB: tl.constexpr):
    """beta_i (k_i . k_j) exp(G_i - G_j) on one 16 x 16 block of the Gram matrix, zero outside
    the strictly lower triangle of the chunk and outside the sequence."""
    r = tl.arange(0, SUB)
    keep = valid_row[:, None] & valid_col[None, :]
    if DIAG:
        keep = keep & (r[:, None] > r[None, :])
    decay = tl.exp(tl.minimum(g_row[:, None] - g_col[None, :], 0.0))
    return tl.where(keep, a * decay * beta_row[:, None], 0.0)


@triton.jit
def _unit_lower_inverse(low, SUB: tl.constexpr):
    """(I + low)^-1 for a strictly lower triangular 16 x 16 block, by row substitution:
    N = (I + L)^-1 - I satisfies N = -L - L N, and row i of N needs only rows j < i."""
    r = tl.arange(0, SUB)
    n = -low
    for i in tl.static_range(2, SUB):
        row = tl.sum(tl.where(r[:, None] == i, low, 0.0), 0)  # L[i, :]
        new = -row - tl.sum(row[:, None] * n, 0)
        n = tl.where(r[:, None] == i, new[None, :], n)
    return n + tl.where(r[:, None] == r[None, :], 1.0, 0.0)


@triton.jit
def _prepare_kernel(
    k_ptr, v_ptr, g_ptr, beta_ptr, cu_ptr, w_ptr, u_ptr, gcum_ptr,
    n_seqs, H_QK, H_V,
    D_K: tl.constexpr, D_V: tl.constexpr, CHUNK: tl.constexpr, SUB: tl.constexpr,
    N_PAD: tl.constexpr, PREC: tl.constexpr,
):
    slot = tl.program_id(0)
    head = tl.program_id(1)
    seq, bos, eos, local = _locate(cu_ptr, n_seqs, slot, CHUNK, N_PAD)
    if seq >= n_seqs:
        return
    t0 = (bos + local * CHUNK).to(tl.int64)
    n_valid = tl.minimum(eos - t0, CHUNK)
    qk_head = head // (H_V // H_QK)
    k_base = k_ptr + qk_head * D_K
    v_base = v_ptr + head * D_V
    r = tl.arange(0, SUB)

    # The chunk's four sub-blocks of 16 tokens.
    ok0 = r < n_valid
    ok1 = (SUB + r) < n_valid
    ok2 = (2 * SUB + r) < n_valid
    ok3 = (3 * SUB + r) < n_valid
    tok0 = t0 + r
    tok1 = t0 + SUB + r
    tok2 = t0 + 2 * SUB + r
    tok3 = t0 + 3 * SUB + r

    # Cumulative log decay inside the chunk (rows past the sequence add nothing).
    g0 = tl.load(g_ptr + tok0 * H_V + head, mask=ok0, other=0.0)
    g1 = tl.load(g_ptr + tok1 * H_V + head, mask=ok1, other=0.0)
    g2 = tl.load(g_ptr + tok2 * H_V + head, mask=ok2, other=0.0)
    g3 = tl.load(g_ptr + tok3 * H_V + head, mask=ok3, other=0.0)
    c0 = tl.cumsum(g0, 0)
    c1 = tl.cumsum(g1, 0) + tl.sum(g0, 0)
    c2 = tl.cumsum(g2, 0) + (tl.sum(g0, 0) + tl.sum(g1, 0))
    c3 = tl.cumsum(g3, 0) + (tl.sum(g0, 0) + tl.sum(g1, 0) + tl.sum(g2, 0))
    tl.store(gcum_ptr + tok0 * H_V + head, c0, mask=ok0)
    tl.store(gcum_ptr + tok1 * H_V + head, c1, mask=ok1)
    tl.store(gcum_ptr + tok2 * H_V + head, c2, mask=ok2)
    tl.store(gcum_ptr + tok3 * H_V + head, c3, mask=ok3)

    b0 = tl.load(beta_ptr + tok0 * H_V + head, mask=ok0, other=0.0).to(tl.float32)
    b1 = tl.load(beta_ptr + tok1 * H_V + head, mask=ok1, other=0.0).to(tl.float32)
    b2 = tl.load(beta_ptr + tok2 * H_V + head, mask=ok2, other=0.0).to(tl.float32)
    b3 = tl.load(beta_ptr + tok3 * H_V + head, mask=ok3, other=0.0).to(tl.float32)

    k0 = _rows(k_base, tok0, ok0, H_QK * D_K, D_K)
    k1 = _rows(k_base, tok1, ok1, H_QK * D_K, D_K)
    k2 = _rows(k_base, tok2, ok2, H_QK * D_K, D_K)
    k3 = _rows(k_base, tok3, ok3, H_QK * D_K, D_K)

    # A = strict_tril(diag(beta) (K K^T * exp(G_i - G_j))), block (i, j) for i >= j.
    a00 = _decayed_block(tl.dot(k0, tl.trans(k0)), c0, c0, b0, ok0, ok0, True, SUB)
    a11 = _decayed_block(tl.dot(k1, tl.trans(k1)), c1, c1, b1, ok1, ok1, True, SUB)
    a22 = _decayed_block(tl.dot(k2, tl.trans(k2)), c2, c2, b2, ok2, ok2, True, SUB)
    a33 = _decayed_block(tl.dot(k3, tl.trans(k3)), c3, c3, b3, ok3, ok3, True, SUB)
    a10 = _decayed_block(tl.dot(k1, tl.trans(k0)), c1, c0, b1, ok1, ok0, False, SUB)
    a20 = _decayed_block(tl.dot(k2, tl.trans(k0)), c2, c0, b2, ok2, ok0, False, SUB)
    a21 = _decayed_block(tl.dot(k2, tl.trans(k1)), c2, c1, b2, ok2, ok1, False, SUB)
    a30 = _decayed_block(tl.dot(k3, tl.trans(k0)), c3, c0, b3, ok3, ok0, False, SUB)
    a31 = _decayed_block(tl.dot(k3, tl.trans(k1)), c3, c1, b3, ok3, ok1, False, SUB)
    a32 = _decayed_block(tl.dot(k3, tl.trans(k2)), c3, c2, b3, ok3, ok2, False, SUB)

    # T = (I + A)^-1: diagonal blocks by substitution, then X_ij = -X_ii sum_m A_im X_mj.
    x00 = _unit_lower_inverse(a00, SUB)
    x11 = _unit_lower_inverse(a11, SUB)
    x22 = _unit_lower_inverse(a22, SUB)
    x33 = _unit_lower_inverse(a33, SUB)
    x10 = -tl.dot(x11, tl.dot(a10, x00, input_precision=PREC), input_precision=PREC)
    x21 = -tl.dot(x22, tl.dot(a21, x11, input_precision=PREC), input_precision=PREC)
    x32 = -tl.dot(x33, tl.dot(a32, x22, input_precision=PREC), input_precision=PREC)
    x20 = -tl.dot(x22, tl.dot(a20, x00, input_precision=PREC)
                  + tl.dot(a21, x10, input_precision=PREC), input_precision=PREC)
    x31 = -tl.dot(x33, tl.dot(a31, x11, input_precision=PREC)
                  + tl.dot(a32, x21, input_precision=PREC), input_precision=PREC)
    x30 = -tl.dot(x33, tl.dot(a30, x00, input_precision=PREC)
                  + tl.dot(a31, x10, input_precision=PREC)
                  + tl.dot(a32, x20, input_precision=PREC), input_precision=PREC)
    x00 = x00.to(tl.bfloat16)
    x10 = x10.to(tl.bfloat16)
    x11 = x11.to(tl.bfloat16)
    x20 = x20.to(tl.bfloat16)
    x21 = x21.to(tl.bfloat16)
    x22 = x22.to(tl.bfloat16)
    x30 = x30.to(tl.bfloat16)
    x31 = x31.to(tl.bfloat16)
    x32 = x32.to(tl.bfloat16)
    x33 = x33.to(tl.bfloat16)

    # W = T diag(beta exp(G)) K, written block row by block row.
    kb0 = (k0.to(tl.float32) * (b0 * tl.exp(c0))[:, None]).to(tl.bfloat16)
    kb1 = (k1.to(tl.float32) * (b1 * tl.exp(c1))[:, None]).to(tl.bfloat16)
    kb2 = (k2.to(tl.float32) * (b2 * tl.exp(c2))[:, None]).to(tl.bfloat16)
    kb3 = (k3.to(tl.float32) * (b3 * tl.exp(c3))[:, None]).to(tl.bfloat16)
    dk = tl.arange(0, D_K)
    w_base = w_ptr + head * D_K
    w_stride = H_V * D_K
    w0 = tl.dot(x00, kb0)
    tl.store(w_base + tok0[:, None] * w_stride + dk[None, :], w0.to(tl.bfloat16), mask=ok0[:, None])
    w1 = tl.dot(x11, kb1, tl.dot(x10, kb0))
    tl.store(w_base + tok1[:, None] * w_stride + dk[None, :], w1.to(tl.bfloat16), mask=ok1[:, None])
    w2 = tl.dot(x22, kb2, tl.dot(x21, kb1, tl.dot(x20, kb0)))
    tl.store(w_base + tok2[:, None] * w_stride + dk[None, :], w2.to(tl.bfloat16), mask=ok2[:, None])
    w3 = tl.dot(x33, kb3, tl.dot(x32, kb2, tl.dot(x31, kb1, tl.dot(x30, kb0))))
    tl.store(w_base + tok3[:, None] * w_stride + dk[None, :], w3.to(tl.bfloat16), mask=ok3[:, None])

    # U = T diag(beta) V.
    vb0 = (_rows(v_base, tok0, ok0, H_V * D_V, D_V).to(tl.float32) * b0[:, None]).to(tl.bfloat16)
    vb1 = (_rows(v_base, tok1, ok1, H_V * D_V, D_V).to(tl.float32) * b1[:, None]).to(tl.bfloat16)
    vb2 = (_rows(v_base, tok2, ok2, H_V * D_V, D_V).to(tl.float32) * b2[:, None]).to(tl.bfloat16)
    vb3 = (_rows(v_base, tok3, ok3, H_V * D_V, D_V).to(tl.float32) * b3[:, None]).to(tl.bfloat16)
    dv = tl.arange(0, D_V)
    u_base = u_ptr + head * D_V
    u_stride = H_V * D_V
    u0 = tl.dot(x00, vb0)
    tl.store(u_base + tok0[:, None] * u_stride + dv[None, :], u0.to(tl.bfloat16), mask=ok0[:, None])
    u1 = tl.dot(x11, vb1, tl.dot(x10, vb0))
    tl.store(u_base + tok1[:, None] * u_stride + dv[None, :], u1.to(tl.bfloat16), mask=ok1[:, None])
    u2 = tl.dot(x22, vb2, tl.dot(x21, vb1, tl.dot(x20, vb0)))
    tl.store(u_base + tok2[:, None] * u_stride + dv[None, :], u2.to(tl.bfloat16), mask=ok2[:, None])
    u3 = tl.dot(x33, vb3, tl.dot(x32, vb2, tl.dot(x31, vb1, tl.dot(x30, vb0))))
    tl.store(u_base + tok3[:, None] * u_stride + dv[None, :], u3.to(tl.bfloat16), mask=ok3[:, None])


@triton.jit
def _chunk_pass_kernel(
    q_ptr, k_ptr, w_ptr, u_ptr, gcum_ptr, cu_ptr, start_ptr, o_ptr, ht_ptr,
    scale, n_seqs, seg_tokens, H_QK, H_V,
    D_K: tl.constexpr, D_V: tl.constexpr, BV: tl.constexpr, CHUNK: tl.constexpr,
    N_PAD: tl.constexpr, FROM_SEGMENTS: tl.constexpr,
):
    vb = tl.program_id(0)
    head = tl.program_id(1)
    slot = tl.program_id(2)
    seq, bos, eos, local = _locate(cu_ptr, n_seqs, slot, seg_tokens, N_PAD)
    if seq >= n_seqs:
        return
    seg_t0 = (bos + local * seg_tokens).to(tl.int64)
    seg_t1 = tl.minimum(seg_t0 + seg_tokens, eos.to(tl.int64))
    n_chunks = ((seg_t1 - seg_t0 + CHUNK - 1) // CHUNK).to(tl.int32)
    qk_head = head // (H_V // H_QK)

    dk = tl.arange(0, D_K)
    dv = vb * BV + tl.arange(0, BV)
    rows = tl.arange(0, CHUNK)
    lower = rows[:, None] >= rows[None, :]
    # Starting state: the sequence's initial state, or the segment's composed start.
    if FROM_SEGMENTS:
        state_off = (slot * H_V + head).to(tl.int64) * D_K * D_V
    else:
        state_off = (seq * H_V + head).to(tl.int64) * D_K * D_V
    h = tl.load(start_ptr + state_off + dk[:, None] * D_V + dv[None, :])  # [D_K, BV] fp32

    qk_base_q = q_ptr + qk_head * D_K
    qk_base_k = k_ptr + qk_head * D_K
    w_base = w_ptr + head * D_K
    u_base = u_ptr + head * D_V
    o_base = o_ptr + head * D_V
    for c in range(0, n_chunks):
        t0 = seg_t0 + c * CHUNK
        tok = t0 + rows
        valid = tok < seg_t1
        t_last = tl.minimum(t0 + CHUNK, seg_t1) - 1
        q = _rows(qk_base_q, tok, valid, H_QK * D_K, D_K)  # [C, D_K]
        kt = tl.load(qk_base_k + tok[None, :] * (H_QK * D_K) + dk[:, None],
                     mask=valid[None, :], other=0.0)  # [D_K, C]
        w = _rows(w_base, tok, valid, H_V * D_K, D_K)  # [C, D_K]
        u = tl.load(u_base + tok[:, None] * (H_V * D_V) + dv[None, :], mask=valid[:, None],
                    other=0.0)  # [C, BV]
        gc = tl.load(gcum_ptr + tok * H_V + head, mask=valid, other=0.0)
        g_last = tl.load(gcum_ptr + t_last * H_V + head)

        hb = h.to(tl.bfloat16)
        # The chunk's corrected values: V_new = U - W h.
        v_new = u.to(tl.float32) - tl.dot(w, hb)
        v_new = tl.where(valid[:, None], v_new, 0.0)
        vnb = v_new.to(tl.bfloat16)
        # Outputs: the state's part (Q * exp(G)) h and the chunk's own causal part.
        qg = (q.to(tl.float32) * tl.exp(gc)[:, None]).to(tl.bfloat16)
        o = tl.dot(qg, hb)
        s = tl.dot(q, kt)
        causal = lower & valid[:, None]
        s = tl.where(causal, s * tl.exp(tl.minimum(gc[:, None] - gc[None, :], 0.0)), 0.0)
        o = tl.dot(s.to(tl.bfloat16), vnb, o) * scale
        tl.store(o_base + tok[:, None] * (H_V * D_V) + dv[None, :], o.to(o_ptr.dtype.element_ty),
                 mask=valid[:, None])
        # Next state: exp(G_last) h + (K * exp(G_last - G))^T V_new.
        k_decay = tl.where(valid, tl.exp(tl.minimum(g_last - gc, 0.0)), 0.0)
        kts = (kt.to(tl.float32) * k_decay[None, :]).to(tl.bfloat16)
        h = tl.dot(kts, vnb, h * tl.exp(g_last))

    if not FROM_SEGMENTS:
        tl.store(ht_ptr + state_off + dk[:, None] * D_V + dv[None, :], h)


@triton.jit
def _segment_map_kernel(
    k_ptr, w_ptr, u_ptr, gcum_ptr, cu_ptr, map_ptr,
    n_seqs, seg_tokens, H_QK, H_V,
    D_K: tl.constexpr, D_V: tl.constexpr, BV: tl.constexpr, CHUNK: tl.constexpr,
    N_PAD: tl.constexpr,
):
    """Columns cb * BV .. of the segment's augmented state [D | M] (D_V + D_K columns): the chunk
    recurrence from [0 | I] with the values U in the D columns and none in the M columns, so
    that after the segment D is its state from zero and M the product of its chunk maps."""
    cb = tl.program_id(0)
    head = tl.program_id(1)
    slot = tl.program_id(2)
    seq, bos, eos, local = _locate(cu_ptr, n_seqs, slot, seg_tokens, N_PAD)
    if seq >= n_seqs:
        return
    seg_t0 = (bos + local * seg_tokens).to(tl.int64)
    seg_t1 = tl.minimum(seg_t0 + seg_tokens, eos.to(tl.int64))
    n_chunks = ((seg_t1 - seg_t0 + CHUNK - 1) // CHUNK).to(tl.int32)
    qk_head = head // (H_V // H_QK)

    dk = tl.arange(0, D_K)
    col = cb * BV + tl.arange(0, BV)  # column of [D | M]
    is_value_col = col < D_V
    rows = tl.arange(0, CHUNK)
    # [0 | I]: column D_V + i of M starts as e_i.
    x = tl.where(dk[:, None] == (col[None, :] - D_V), 1.0, 0.0)  # [D_K, BV] fp32

    qk_base_k = k_ptr + qk_head * D_K
    w_base = w_ptr + head * D_K
    u_base = u_ptr + head * D_V
    for c in range(0, n_chunks):
        t0 = seg_t0 + c * CHUNK
        tok = t0 + rows
        valid = tok < seg_t1
        t_last = tl.minimum(t0 + CHUNK, seg_t1) - 1
        kt = tl.load(qk_base_k + tok[None, :] * (H_QK * D_K) + dk[:, None],
                     mask=valid[None, :], other=0.0)  # [D_K, C]
        w = _rows(w_base, tok, valid, H_V * D_K, D_K)
        u = tl.load(u_base + tok[:, None] * (H_V * D_V) + col[None, :],
                    mask=valid[:, None] & is_value_col[None, :], other=0.0)  # [C, BV]
        gc = tl.load(gcum_ptr + tok * H_V + head, mask=valid, other=0.0)
        g_last = tl.load(gcum_ptr + t_last * H_V + head)

        v_new = u.to(tl.float32) - tl.dot(w, x.to(tl.bfloat16))
        v_new = tl.where(valid[:, None], v_new, 0.0)
        k_decay = tl.where(valid, tl.exp(tl.minimum(g_last - gc, 0.0)), 0.0)
        kts = (kt.to(tl.float32) * k_decay[None, :]).to(tl.bfloat16)
        x = tl.dot(kts, v_new.to(tl.bfloat16), x * tl.exp(g_last))

    width = D_V + D_K
    map_off = (slot * H_V + head).to(tl.int64) * D_K * width
    tl.store(map_ptr + map_off + dk[:, None] * width + col[None, :], x)


@triton.jit
def _segment_scan_kernel(
    cu_ptr, h0_ptr, map_ptr, start_ptr, ht_ptr,
    n_seqs, seg_tokens, H_V,
    D_K: tl.constexpr, D_V: tl.constexpr, BV: tl.constexpr, N_PAD: tl.constexpr,
    PREC: tl.constexpr,
):
    """Along one sequence: store each segment's starting state, then h <- M h + D."""
    vb = tl.program_id(0)
    head = tl.program_id(1)
    seq = tl.program_id(2)
    s = tl.arange(0, N_PAD)
    ok = s < n_seqs
    starts = tl.load(cu_ptr + s, mask=ok, other=0)
    ends = tl.load(cu_ptr + s + 1, mask=ok, other=0)
    counts = tl.where(ok, (ends - starts + seg_tokens - 1) // seg_tokens, 0)
    first_seg = tl.sum(tl.where(s < seq, counts, 0), 0)
    n_segs = tl.sum(tl.where(s == seq, counts, 0), 0)

    dk = tl.arange(0, D_K)
    dv = vb * BV + tl.arange(0, BV)
    width = D_V + D_K
    tile = dk[:, None] * D_V + dv[None, :]
    h = tl.load(h0_ptr + (seq * H_V + head).to(tl.int64) * D_K * D_V + tile)
    for i in range(0, n_segs):
        slot = first_seg + i
        tl.store(start_ptr + (slot * H_V + head).to(tl.int64) * D_K * D_V + tile, h)
        map_base = map_ptr + (slot * H_V + head).to(tl.int64) * D_K * width + dk[:, None] * width
        m = tl.load(map_base + D_V + dk[None, :])  # [D_K, D_K]
        d = tl.load(map_base + dv[None, :])  # [D_K, BV]
        h = tl.dot(m, h, d, input_precision=PREC)
    tl.store(ht_ptr + (seq * H_V + head).to(tl.int64) * D_K * D_V + tile, h)


def _plan_segments(total, n_seqs, h_v, d_v, num_sms):
    """Tokens per segment, from shapes only. One segment per sequence (segment length at least
    the packed axis) when the pass already has a wave of programs; otherwise segments of at
    least _MIN_SEG_CHUNKS chunks, enough for about _CP_WAVES waves."""
    chunks = triton.cdiv(total, _CHUNK)
    col_blocks = d_v // _BV
    if n_seqs * h_v * col_blocks >= num_sms:
        return chunks * _CHUNK, False
    wanted = triton.cdiv(_CP_WAVES * num_sms, h_v * col_blocks)
    seg_chunks = max(_MIN_SEG_CHUNKS, triton.cdiv(chunks, wanted))
    if seg_chunks >= chunks:
        return chunks * _CHUNK, False
    return seg_chunks * _CHUNK, True


def run(q, k, v, g, beta, initial_state, cu_seqlens, scale):
    for name, t in (("q", q), ("k", k), ("v", v), ("g", g), ("beta", beta),
                    ("initial_state", initial_state), ("cu_seqlens", cu_seqlens)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    _, total, h_qk, d_k = q.shape
    h_v, d_v = v.shape[2], v.shape[3]
    n_seqs = cu_seqlens.shape[0] - 1
    assert k.shape == q.shape and v.shape[:2] == q.shape[:2] and h_v % h_qk == 0
    assert d_k == 128 and d_v % _BV == 0 and g.shape == beta.shape == (1, total, h_v)
    assert tuple(initial_state.shape) == (n_seqs, h_v, d_k, d_v)
    device = q.device
    n_pad = max(2, triton.next_power_of_2(n_seqs))
    num_sms = torch.cuda.get_device_properties(device).multi_processor_count

    w = torch.empty((total, h_v, d_k), dtype=torch.bfloat16, device=device)
    u = torch.empty((total, h_v, d_v), dtype=torch.bfloat16, device=device)
    gcum = torch.empty((total, h_v), dtype=torch.float32, device=device)
    max_chunks = total // _CHUNK + n_seqs
    _prepare_kernel[(max_chunks, h_v)](
        k, v, g, beta, cu_seqlens, w, u, gcum,
        n_seqs, h_qk, h_v,
        D_K=d_k, D_V=d_v, CHUNK=_CHUNK, SUB=_SUB, N_PAD=n_pad, PREC=_TRIL_PRECISION,
        num_warps=_PREP_WARPS,
    )

    o = torch.empty((1, total, h_v, d_v), dtype=v.dtype, device=device)
    final_state = torch.empty((n_seqs, h_v, d_k, d_v), dtype=torch.float32, device=device)
    seg_tokens, segmented = _plan_segments(total, n_seqs, h_v, d_v, num_sms)
    max_segments = total // seg_tokens + n_seqs
    if segmented:
        maps = torch.empty((max_segments, h_v, d_k, d_v + d_k), dtype=torch.float32,
                           device=device)
        seg_starts = torch.empty((max_segments, h_v, d_k, d_v), dtype=torch.float32,
                                 device=device)
        _segment_map_kernel[((d_v + d_k) // _BV, h_v, max_segments)](
            k, w, u, gcum, cu_seqlens, maps,
            n_seqs, seg_tokens, h_qk, h_v,
            D_K=d_k, D_V=d_v, BV=_BV, CHUNK=_CHUNK, N_PAD=n_pad,
            num_warps=_PASS_WARPS, num_stages=_PASS_STAGES,
        )
        _segment_scan_kernel[(d_v // _BV, h_v, n_seqs)](
            cu_seqlens, initial_state, maps, seg_starts, final_state,
            n_seqs, seg_tokens, h_v,
            D_K=d_k, D_V=d_v, BV=_BV, N_PAD=n_pad, PREC=_SCAN_PRECISION,
            num_warps=_SCAN_WARPS,
        )
        start = seg_starts
    else:
        start = initial_state
    _chunk_pass_kernel[(d_v // _BV, h_v, max_segments)](
        q, k, w, u, gcum, cu_seqlens, start, o, final_state,
        float(scale), n_seqs, seg_tokens, h_qk, h_v,
        D_K=d_k, D_V=d_v, BV=_BV, CHUNK=_CHUNK, N_PAD=n_pad, FROM_SEGMENTS=segmented,
        num_warps=_PASS_WARPS, num_stages=_PASS_STAGES,
    )
    return o, final_state
