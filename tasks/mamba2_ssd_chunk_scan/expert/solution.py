"""Expert: the state-space dual (chunked) form of the Mamba-2 scan in three Triton kernels.

Within a chunk of Q = 256 tokens the recurrence is a masked, decay-weighted attention,
y_i = sum_{k <= i} (C_i . B_k) 2^(a_i - a_k) dt_k x_k + 2^(a_i) C_i . S_in + D x_i, where a is
the chunk-local inclusive cumulative sum of dt A log2(e) and S_in the state entering the chunk.
Across chunks only the head_dim x d_state states travel, S_next = 2^(a_last) S_in +
sum_k 2^(a_last - a_k) dt_k x_k (outer) B_k. Everything but that short chain is a matrix product.

1. `_step_cumsum_kernel`, grid (chunks, batch, head blocks): dt = softplus(dt + dt_bias) and the
   chunk-local cumulative sum a of dt A log2(e), both fp32, written once per (sequence, head).
2. `_state_pass_kernel`, grid (state row blocks, batch): walks the chunks of one sequence in
   order with a block of state rows (part of a head, or several heads of one group, which then
   share the B tiles) in fp32 registers. At every chunk boundary it stores the entering state
   (bf16, the operand the output product reads); it folds the tokens in 64 or 128 at a time with
   one tensor-core product each, S = 2^(a_end - a_start) S + (x * dt 2^(a_end - a))^T B.
   Chunk contributions never go to memory.
3. `_chunk_scan_kernel`, grid (chunks x row tiles, batch x groups x head blocks): for 64 output
   rows of a chunk it computes C B^T against the whole chunk once for its group and reuses it for
   a block of the group's heads; per head it applies the decay mask and dt, multiplies by x, adds
   2^(a_i) C S_in^T and D x, and writes y. All products are bf16 on tensor cores with fp32
   accumulation.

Grids and scratch come from shapes alone, so the call can be captured in a CUDA graph. PyTorch
only allocates the outputs and the scratch.
"""

import math

import torch
import triton
import triton.language as tl

_LOG2_E = 1.4426950408889634

# Tokens per chunk: the length of the quadratic intra-chunk form and the spacing of the stored
# chunk-boundary states (their traffic per token is d_state / CHUNK times that of x).
_CHUNK = 256
# Heads per program of the step/cumsum kernel (coalesced loads along the head axis of dt).
_CUMSUM_HEADS = 16
# Output rows per program of the chunk-scan kernel, its warps, and the most heads of one group
# that share a program's C B^T tile.
_BLOCK_M = 64
_SCAN_WARPS = 8
_MAX_SHARED_HEADS = 8


@triton.jit
def _softplus(v):
    # log(1 + e^v) with log1p accuracy for small e^v (Goldberg's correction); v itself above 20.
    u = tl.exp(v)
    w = 1.0 + u
    small = tl.where(w == 1.0, u, tl.log(w) * (u / (w - 1.0)))
    return tl.where(v > 20.0, v, small)


@triton.jit
def _step_cumsum_kernel(
    dt_ptr, a_ptr, bias_ptr, step_ptr, acs_ptr,
    T, H, T_PAD, stride_dt_b, stride_dt_t,
    CHUNK: tl.constexpr, BLOCK_H: tl.constexpr, LOG2_E: tl.constexpr,
):
    chunk = tl.program_id(0)
    b = tl.program_id(1)
    h_blk = tl.program_id(2)
    t = chunk * CHUNK + tl.arange(0, CHUNK)
    h = h_blk * BLOCK_H + tl.arange(0, BLOCK_H)
    t_ok = t < T
    h_ok = h < H
    ok = t_ok[:, None] & h_ok[None, :]
    raw = tl.load(dt_ptr + b.to(tl.int64) * stride_dt_b + t[:, None] * stride_dt_t + h[None, :],
                  mask=ok, other=0.0).to(tl.float32)
    bias = tl.load(bias_ptr + h, mask=h_ok, other=0.0)
    rate = tl.load(a_ptr + h, mask=h_ok, other=0.0) * LOG2_E
    # Tokens past the sequence get dt = 0: no decay and no input, so the padded chunk tail
    # leaves the state unchanged.
    step = tl.where(ok, _softplus(raw + bias[None, :]), 0.0)
    acs = tl.cumsum(step * rate[None, :], axis=0)
    out = (b * H + h[None, :]).to(tl.int64) * T_PAD + t[:, None]
    tl.store(step_ptr + out, step, mask=h_ok[None, :])
    tl.store(acs_ptr + out, acs, mask=h_ok[None, :])


@triton.jit
def _state_pass_kernel(
    x_ptr, b_ptr, step_ptr, acs_ptr, init_ptr, states_ptr, final_ptr,
    T, H, PER_GROUP, NUM_CHUNKS, T_PAD,
    stride_x_b, stride_x_t, stride_b_b, stride_b_t,
    P: tl.constexpr, N: tl.constexpr, ROWS: tl.constexpr, CHUNK: tl.constexpr,
    SUB: tl.constexpr,
):
    # A program owns ROWS consecutive state rows r = head * P + p of one sequence, all in one
    # group (ROWS divides PER_GROUP * P): one head's rows or several whole heads, which then
    # share every B tile the program loads.
    SUBS: tl.constexpr = CHUNK // SUB
    row_blk = tl.program_id(0)
    b = tl.program_id(1)
    b64 = b.to(tl.int64)
    r = row_blk * ROWS + tl.arange(0, ROWS)
    head = r // P
    g = (row_blk * ROWS) // (PER_GROUP * P)
    n = tl.arange(0, N)
    k = tl.arange(0, SUB)
    rn = r[:, None] * N + n[None, :]
    hpn = H * P * N

    state = tl.load(init_ptr + b64 * hpn + rn)  # [ROWS, N] fp32
    step_rows = step_ptr + (b64 * H + head) * T_PAD  # [ROWS] row starts
    acs_rows = acs_ptr + (b64 * H + head) * T_PAD
    x_cols = x_ptr + b64 * stride_x_b + r  # x[b, t, head, p] is column r of token t
    b_cols = b_ptr + b64 * stride_b_b + g * N + n
    # One step per SUB tokens; a chunk is SUBS steps. The cumulative sum a restarts at every
    # chunk, so the decay over a step is 2^(a[last] - a[first - 1]), with a[-1] = 0 at a
    # chunk's first step.
    for j in range(NUM_CHUNKS * SUBS):
        chunk = j // SUBS
        sub = j % SUBS
        # At a chunk's first step: store the state entering the chunk for the output kernel.
        slot = (b64 * NUM_CHUNKS + chunk) * hpn
        tl.store(states_ptr + slot + rn, state.to(states_ptr.dtype.element_ty),
                 mask=(rn >= 0) & (sub == 0))

        t = j * SUB + k
        t_ok = t < T
        step = tl.load(step_rows[None, :] + t[:, None])  # [SUB, ROWS]
        acs = tl.load(acs_rows[None, :] + t[:, None])
        acs_end = tl.load(acs_rows + (j * SUB + SUB - 1))  # [ROWS]
        acs_before = tl.load(acs_rows + (j * SUB - 1), mask=(r >= 0) & (sub > 0), other=0.0)
        xs = tl.load(x_cols[None, :] + t[:, None] * stride_x_t, mask=t_ok[:, None], other=0.0)
        bs = tl.load(b_cols[None, :] + t[:, None] * stride_b_t, mask=t_ok[:, None], other=0.0)
        # dt_k times the decay from token k to the step's end, per row's head.
        xw = (xs.to(tl.float32) * step * tl.exp2(acs_end[None, :] - acs)).to(bs.dtype)
        state = tl.dot(tl.trans(xw), bs, state * tl.exp2(acs_end - acs_before)[:, None])

    tl.store(final_ptr + b64 * hpn + rn, state)


@triton.jit
def _chunk_scan_kernel(
    x_ptr, b_ptr, c_ptr, d_ptr, step_ptr, acs_ptr, states_ptr, y_ptr,
    T, H, PER_GROUP, GROUPS, NUM_CHUNKS, T_PAD, HEADS_PER_PROG,
    stride_x_b, stride_x_t, stride_b_b, stride_b_t, stride_y_b, stride_y_t,
    P: tl.constexpr, N: tl.constexpr, CHUNK: tl.constexpr, BLOCK_M: tl.constexpr,
):
    M_TILES: tl.constexpr = CHUNK // BLOCK_M
    pid0 = tl.program_id(0)
    pid1 = tl.program_id(1)
    chunk = pid0 // M_TILES
    m_tile = pid0 % M_TILES
    head_blocks = PER_GROUP // HEADS_PER_PROG
    b = pid1 // (GROUPS * head_blocks)
    rest = pid1 % (GROUPS * head_blocks)
    g = rest // head_blocks
    first_head = g * PER_GROUP + (rest % head_blocks) * HEADS_PER_PROG

    m = m_tile * BLOCK_M + tl.arange(0, BLOCK_M)  # rows of this tile, chunk-local
    k = tl.arange(0, CHUNK)  # every token of the chunk, chunk-local
    n = tl.arange(0, N)
    p = tl.arange(0, P)
    tm = chunk * CHUNK + m
    tk = chunk * CHUNK + k
    m_ok = tm < T
    k_ok = tk < T
    b64 = b.to(tl.int64)

    # C_m B_k^T for the group, once for all the heads of this program.
    cm = tl.load(c_ptr + b64 * stride_b_b + tm[:, None] * stride_b_t + g * N + n[None, :],
                 mask=m_ok[:, None], other=0.0)  # [BLOCK_M, N]
    bk = tl.load(b_ptr + b64 * stride_b_b + tk[:, None] * stride_b_t + g * N + n[None, :],
                 mask=k_ok[:, None], other=0.0)  # [CHUNK, N]
    cb = tl.dot(cm, tl.trans(bk))  # [BLOCK_M, CHUNK] fp32

    for i in range(HEADS_PER_PROG):
        h = first_head + i
        row = (b64 * H + h) * T_PAD + chunk * CHUNK
        acs_m = tl.load(acs_ptr + row + m)
        acs_k = tl.load(acs_ptr + row + k)
        step_k = tl.load(step_ptr + row + k)
        # The state entering the chunk, read as S_in^T [N, P], decayed to each row.
        slot = (b64 * NUM_CHUNKS + chunk) * H + h
        s_in = tl.load(states_ptr + slot * (P * N) + p[None, :] * N + n[:, None])
        acc = tl.dot(cm, s_in) * tl.exp2(acs_m)[:, None]  # [BLOCK_M, P]

        # Causal decay 2^(a_i - a_k) for k <= i; the exponent is set to -inf above the diagonal
        # before exp2, so masked positions are exact zeros and never overflow.
        gap = tl.where(k[None, :] <= m[:, None], acs_m[:, None] - acs_k[None, :], float("-inf"))
        scores = cb * tl.exp2(gap) * step_k[None, :]
        xk = tl.load(x_ptr + b64 * stride_x_b + tk[:, None] * stride_x_t + h * P + p[None, :],
                     mask=k_ok[:, None], other=0.0)  # [CHUNK, P]
        acc = tl.dot(scores.to(xk.dtype), xk, acc)

        xm = tl.load(x_ptr + b64 * stride_x_b + tm[:, None] * stride_x_t + h * P + p[None, :],
                     mask=m_ok[:, None], other=0.0)
        acc += tl.load(d_ptr + h) * xm.to(tl.float32)
        tl.store(y_ptr + b64 * stride_y_b + tm[:, None] * stride_y_t + h * P + p[None, :],
                 acc.to(y_ptr.dtype.element_ty), mask=m_ok[:, None])


def _state_rows(batch, heads, per_group, head_dim, num_sms):
    """State rows per state-passing program: as many as keep four programs per SM (more rows
    share each B tile among more heads), at least 16 (one tensor-core tile)."""
    for rows in (128, 64, 32):
        if (per_group * head_dim) % rows == 0 and batch * heads * head_dim // rows >= 4 * num_sms:
            return rows
    return 16


def run(x, dt, A, B, C, D, dt_bias, initial_states):
    batch, seq_len, heads, head_dim = x.shape
    groups, d_state = B.shape[2], B.shape[3]
    assert dt.shape == (batch, seq_len, heads)
    assert B.shape == C.shape == (batch, seq_len, groups, d_state)
    assert A.shape == D.shape == dt_bias.shape == (heads,)
    assert initial_states.shape == (batch, heads, head_dim, d_state)
    assert heads % groups == 0
    for name, t in (("x", x), ("dt", dt), ("B", B), ("C", C), ("initial_states", initial_states)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    per_group = heads // groups
    num_chunks = triton.cdiv(seq_len, _CHUNK)
    t_pad = num_chunks * _CHUNK
    device = x.device

    step = torch.empty((batch, heads, t_pad), dtype=torch.float32, device=device)
    acs = torch.empty((batch, heads, t_pad), dtype=torch.float32, device=device)
    states = torch.empty((batch, num_chunks, heads, head_dim, d_state), dtype=torch.bfloat16,
                         device=device)
    y = torch.empty_like(x)
    final_states = torch.empty((batch, heads, head_dim, d_state), dtype=torch.float32,
                               device=device)

    _step_cumsum_kernel[(num_chunks, batch, triton.cdiv(heads, _CUMSUM_HEADS))](
        dt, A, dt_bias, step, acs, seq_len, heads, t_pad, dt.stride(0), dt.stride(1),
        CHUNK=_CHUNK, BLOCK_H=_CUMSUM_HEADS, LOG2_E=_LOG2_E, num_warps=4,
    )

    num_sms = torch.cuda.get_device_properties(device).multi_processor_count
    rows = _state_rows(batch, heads, per_group, head_dim, num_sms)
    _state_pass_kernel[(heads * head_dim // rows, batch)](
        x, B, step, acs, initial_states, states, final_states,
        seq_len, heads, per_group, num_chunks, t_pad,
        x.stride(0), x.stride(1), B.stride(0), B.stride(1),
        P=head_dim, N=d_state, ROWS=rows, CHUNK=_CHUNK, SUB=64 if rows == 128 else 128,
        num_warps=8 if rows == 128 else 4, num_stages=2,
    )

    heads_per_prog = math.gcd(per_group, _MAX_SHARED_HEADS)
    grid = (num_chunks * (_CHUNK // _BLOCK_M), batch * groups * (per_group // heads_per_prog))
    _chunk_scan_kernel[grid](
        x, B, C, D, step, acs, states, y,
        seq_len, heads, per_group, groups, num_chunks, t_pad, heads_per_prog,
        x.stride(0), x.stride(1), B.stride(0), B.stride(1), y.stride(0), y.stride(1),
        P=head_dim, N=d_state, CHUNK=_CHUNK, BLOCK_M=_BLOCK_M,
        num_warps=_SCAN_WARPS, num_stages=2,
    )
    return y, final_states
