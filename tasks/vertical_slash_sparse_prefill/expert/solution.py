"""Vertical-and-slash sparse prefill: a block index built on the GPU, then block-sparse flash
attention over it.

Query rows and keys are cut into 64-wide blocks. For query block m and key block m - delta, the
pairs (i, j) have offsets i - j in [64 delta - 63, 64 delta + 63], a window that depends on delta
only. So the slash offsets of a head decide, once per head, which block distances delta hold
any selected pair (and whether every pair of the window is selected), and query block m visits
key blocks m - delta for the listed delta <= m. Vertical columns whose key block is not visited
that way are compacted per (head, query block) into a column list.

Five kernels per call:
  _clear_maps    zero the per-head byte maps of slash offsets and vertical columns
  _mark_maps     set the map bytes of every listed offset and column
  _classify      per head: the class of every block distance (empty / partial / full), the
                 ascending list of non-empty distances, a running count per distance, and the
                 selection of every window and every key block's columns as 64-bit words
  _columns       per (head, query block): the vertical columns outside the visited key blocks
  _sparse_attn   per (head, query block): flash attention over the visited key blocks (a mask
                 only on partial blocks, from the bit words, and on the diagonal block), then
                 over the gathered column tiles, under one fp32 online softmax in base 2
"""

import torch
import triton
import triton.language as tl

BLOCK = 64  # query rows per block == keys per block: block distances are shift invariant
LOG2E = 1.4426950408889634


@triton.jit
def _clear_maps(slash_map, vert_map, T, CHUNK: tl.constexpr):
    h = tl.program_id(1)
    offs = tl.program_id(0) * CHUNK + tl.arange(0, CHUNK)
    ok = offs < T
    zero = tl.zeros([CHUNK], dtype=tl.int8)
    tl.store(slash_map + h * T + offs, zero, mask=ok)
    tl.store(vert_map + h * T + offs, zero, mask=ok)


@triton.jit
def _mark_maps(slash_idx, vertical_idx, slash_map, vert_map, T, n_slash, n_vertical,
               CHUNK: tl.constexpr):
    h = tl.program_id(1)
    offs = tl.program_id(0) * CHUNK + tl.arange(0, CHUNK)
    one = tl.full([CHUNK], 1, dtype=tl.int8)
    s_ok = offs < n_slash
    s = tl.load(slash_idx + h * n_slash + offs, mask=s_ok, other=0)
    tl.store(slash_map + h * T + s, one, mask=s_ok)
    v_ok = offs < n_vertical
    col = tl.load(vertical_idx + h * n_vertical + offs, mask=v_ok, other=0)
    tl.store(vert_map + h * T + col, one, mask=v_ok)


@triton.jit
def _bit_or(a, b):
    return a | b


@triton.jit
def _classify(slash_map, vert_map, delta_class, block_delta, block_full, count_le, win_lo, win_hi,
              col_bits, T, NB, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    """One program per head. delta_class[h, delta]: 0 no offset of the window is selected, 1 some,
    2 all (of those in [0, T)). block_delta[h, :count] lists the non-empty distances ascending,
    block_full[h, t] says whether block_delta[h, t] is of class 2, and count_le[h, delta] is the
    number of listed distances <= delta. win_lo / win_hi[h, delta] hold the window as bits (bit w
    of the 128-bit pair <-> offset 64 delta - 63 + w selected) and col_bits[h, b] the vertical
    columns of key block b (bit c <-> key 64 b + c is a column); the partial-tile masks of the
    attention are read from these words. BLOCK_N must be 64."""
    h = tl.program_id(0)
    w = tl.arange(0, 2 * BLOCK_N)
    c = tl.arange(0, BLOCK_N)
    w_bit = tl.full([2 * BLOCK_N], 1, dtype=tl.int64) << (w % BLOCK_N).to(tl.int64)
    c_bit = tl.full([BLOCK_N], 1, dtype=tl.int64) << c.to(tl.int64)
    running = tl.sum(tl.zeros([BLOCK_D], dtype=tl.int32), axis=0)
    for start in range(0, NB, BLOCK_D):
        d = start + tl.arange(0, BLOCK_D)
        d_ok = d < NB
        # Offsets 64 d - 63 .. 64 d + 63 (the window has 2 * BLOCK_N - 1 entries).
        offs = d[:, None] * BLOCK_N - (BLOCK_N - 1) + w[None, :]
        ok = d_ok[:, None] & (w[None, :] < 2 * BLOCK_N - 1) & (offs >= 0) & (offs < T)
        hit = tl.load(slash_map + h * T + offs, mask=ok, other=0).to(tl.int32)
        cnt = tl.sum(hit, axis=1)
        tot = tl.sum(ok.to(tl.int32), axis=1)
        words = hit.to(tl.int64) * w_bit[None, :]
        lo = tl.reduce(tl.where(w[None, :] < BLOCK_N, words, 0), 1, _bit_or)
        hi = tl.reduce(tl.where(w[None, :] >= BLOCK_N, words, 0), 1, _bit_or)
        tl.store(win_lo + h * NB + d, lo, mask=d_ok)
        tl.store(win_hi + h * NB + d, hi, mask=d_ok)
        # The same d indexes key blocks here: the columns of key block d as bits.
        keys = d[:, None] * BLOCK_N + c[None, :]
        on_col = tl.load(vert_map + h * T + keys, mask=d_ok[:, None] & (keys < T), other=0)
        cols = tl.reduce(on_col.to(tl.int64) * c_bit[None, :], 1, _bit_or)
        tl.store(col_bits + h * NB + d, cols, mask=d_ok)
        cls = tl.where(cnt == 0, 0, tl.where(cnt == tot, 2, 1))
        tl.store(delta_class + h * NB + d, cls.to(tl.int8), mask=d_ok)
        nonempty = (cnt > 0) & d_ok
        incl = tl.cumsum(nonempty.to(tl.int32), axis=0) + running
        tl.store(count_le + h * NB + d, incl, mask=d_ok)
        tl.store(block_delta + h * NB + incl - 1, d, mask=nonempty)
        tl.store(block_full + h * NB + incl - 1, (cls == 2).to(tl.int8), mask=nonempty)
        running += tl.sum(nonempty.to(tl.int32), axis=0)


@triton.jit
def _columns(vertical_idx, delta_class, column_index, column_count, NB, n_vertical,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_V: tl.constexpr):
    """One program per (head, query block m): the vertical columns c <= the block's last row
    whose key block m - c // BLOCK_N is a distance of class 0, ascending."""
    h = tl.program_id(0)
    m = tl.program_id(1)
    last_row = m * BLOCK_M + BLOCK_M - 1
    out = column_index + (h * NB + m) * n_vertical
    running = tl.sum(tl.zeros([BLOCK_V], dtype=tl.int32), axis=0)
    for c in range(0, n_vertical, BLOCK_V):
        idx = c + tl.arange(0, BLOCK_V)
        ok = idx < n_vertical
        col = tl.load(vertical_idx + h * n_vertical + idx, mask=ok, other=0)
        ok = ok & (col <= last_row)
        delta = m - col // BLOCK_N
        cls = tl.load(delta_class + h * NB + delta, mask=ok, other=1)
        keep = ok & (cls == 0)
        incl = tl.cumsum(keep.to(tl.int32), axis=0) + running
        tl.store(out + incl - 1, col, mask=keep)
        running += tl.sum(keep.to(tl.int32), axis=0)
    tl.store(column_count + h * NB + m, running)


@triton.jit
def _sparse_attn(q_ptr, k_ptr, v_ptr, o_ptr, win_lo, win_hi, col_bits, block_delta, block_full,
                 count_le, column_index, column_count, qk_scale, T, NB, n_vertical, GROUP,
                 stride_qt, stride_qh, stride_kt, stride_kh, stride_vt, stride_vh,
                 stride_ot, stride_oh,
                 HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Heads vary fastest, so the heads of one KV group run side by side on the same query block
    # and read the same key blocks through the L2; query blocks run longest first.
    h = tl.program_id(0)
    m = NB - 1 - tl.program_id(1)
    hk = h // GROUP

    offs_m = m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    offs_b = tl.arange(0, BLOCK_N)
    offs_r = tl.arange(0, BLOCK_M)
    row_ok = offs_m < T
    q = tl.load(q_ptr + offs_m[:, None] * stride_qt + h * stride_qh + offs_d[None, :],
                mask=row_ok[:, None], other=0.0)
    k_base = k_ptr + hk * stride_kh + offs_d[None, :]
    v_base = v_ptr + hk * stride_vh + offs_d[None, :]

    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)

    # Phase 1: the key blocks m - delta of the listed distances delta <= m (ascending, so the
    # diagonal block delta = 0 comes first and every row has a finite maximum after it).
    n_blocks = tl.load(count_le + h * NB + m)
    for t in range(0, n_blocks):
        delta = tl.load(block_delta + h * NB + t)
        full = tl.load(block_full + h * NB + t)
        offs_n = (m - delta) * BLOCK_N + offs_b
        col_ok = offs_n < T
        k = tl.load(k_base + offs_n[:, None] * stride_kt, mask=col_ok[:, None], other=0.0)
        v = tl.load(v_base + offs_n[:, None] * stride_vt, mask=col_ok[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        if (delta == 0) | (full == 0):
            keep = (offs_m[:, None] >= offs_n[None, :]) & col_ok[None, :]
            if full == 0:
                # Pair (row r, key c) of the tile has offset 64 delta + r - c, bit r - c + 63 of
                # the window words; key c is a column when bit c of its block's word is set.
                lo = tl.load(win_lo + h * NB + delta)
                hi = tl.load(win_hi + h * NB + delta)
                col_word = tl.load(col_bits + h * NB + (m - delta))
                widx = offs_r[:, None] - offs_b[None, :] + (BLOCK_N - 1)
                word = tl.where(widx < BLOCK_N, lo, hi)
                on_slash = ((word >> (widx % BLOCK_N).to(tl.int64)) & 1) != 0
                on_col = ((col_word >> offs_b.to(tl.int64)) & 1) != 0
                keep = keep & (on_slash | on_col[None, :])
            s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        m_use = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.exp2(m_i - m_use)
        p = tl.exp2(s - m_use[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new

    # Phase 2: the vertical columns outside the visited blocks, gathered BLOCK_N at a time.
    n_cols = tl.load(column_count + h * NB + m)
    cols_base = column_index + (h * NB + m) * n_vertical
    for c in range(0, n_cols, BLOCK_N):
        idx = c + offs_b
        c_ok = idx < n_cols
        cols = tl.load(cols_base + idx, mask=c_ok, other=0)
        k = tl.load(k_base + cols[:, None] * stride_kt, mask=c_ok[:, None], other=0.0)
        v = tl.load(v_base + cols[:, None] * stride_vt, mask=c_ok[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        keep = c_ok[None, :] & (cols[None, :] <= offs_m[:, None])
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        m_use = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.exp2(m_i - m_use)
        p = tl.exp2(s - m_use[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new

    l_safe = tl.where(l_i == 0.0, 1.0, l_i)
    o = acc / l_safe[:, None]
    tl.store(o_ptr + offs_m[:, None] * stride_ot + h * stride_oh + offs_d[None, :],
             o.to(o_ptr.dtype.element_ty), mask=row_ok[:, None])


def run(q, k, v, vertical_idx, slash_idx, sm_scale):
    T, h_q, head_dim = q.shape
    h_kv = k.shape[1]
    n_vertical = vertical_idx.shape[1]
    n_slash = slash_idx.shape[1]
    assert k.shape == (T, h_kv, head_dim) and v.shape == (T, h_kv, head_dim)
    assert h_q % h_kv == 0 and head_dim in (64, 128)
    assert vertical_idx.shape[0] == h_q and slash_idx.shape[0] == h_q
    assert q.stride(2) == 1 and k.stride(2) == 1 and v.stride(2) == 1
    assert vertical_idx.is_contiguous() and slash_idx.is_contiguous()
    device = q.device
    NB = triton.cdiv(T, BLOCK)

    slash_map = torch.empty((h_q, T), dtype=torch.int8, device=device)
    vert_map = torch.empty((h_q, T), dtype=torch.int8, device=device)
    delta_class = torch.empty((h_q, NB), dtype=torch.int8, device=device)
    block_delta = torch.empty((h_q, NB), dtype=torch.int32, device=device)
    block_full = torch.empty((h_q, NB), dtype=torch.int8, device=device)
    count_le = torch.empty((h_q, NB), dtype=torch.int32, device=device)
    win_lo = torch.empty((h_q, NB), dtype=torch.int64, device=device)
    win_hi = torch.empty((h_q, NB), dtype=torch.int64, device=device)
    col_bits = torch.empty((h_q, NB), dtype=torch.int64, device=device)
    column_index = torch.empty((h_q, NB, n_vertical), dtype=torch.int32, device=device)
    column_count = torch.empty((h_q, NB), dtype=torch.int32, device=device)
    o = torch.empty_like(q)

    chunk = 1024
    _clear_maps[(triton.cdiv(T, chunk), h_q)](slash_map, vert_map, T, CHUNK=chunk)
    _mark_maps[(triton.cdiv(max(n_slash, n_vertical), chunk), h_q)](
        slash_idx, vertical_idx, slash_map, vert_map, T, n_slash, n_vertical, CHUNK=chunk)
    _classify[(h_q,)](slash_map, vert_map, delta_class, block_delta, block_full, count_le,
                      win_lo, win_hi, col_bits, T, NB, BLOCK_N=BLOCK, BLOCK_D=32, num_warps=4)
    _columns[(h_q, NB)](vertical_idx, delta_class, column_index, column_count, NB, n_vertical,
                        BLOCK_M=BLOCK, BLOCK_N=BLOCK, BLOCK_V=256, num_warps=4)
    _sparse_attn[(h_q, NB)](
        q, k, v, o, win_lo, win_hi, col_bits, block_delta, block_full, count_le, column_index,
        column_count, sm_scale * LOG2E, T, NB, n_vertical, h_q // h_kv,
        q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1),
        o.stride(0), o.stride(1),
        HEAD_DIM=head_dim, BLOCK_M=BLOCK, BLOCK_N=BLOCK, num_warps=4, num_stages=3)
    return o
