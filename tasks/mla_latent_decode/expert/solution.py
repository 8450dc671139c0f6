"""Expert: absorbed MLA decode, multi-query attention over the paged 576-wide latent with
split-KV and an exact log-sum-exp combine fused with the value up-projection.

By associativity, q_nope . (w_uk[h] c) = (q_nope w_uk[h]) . c and sum_t p_t (w_uv[h] c_t) =
w_uv[h] (sum_t p_t c_t). So the keys and values never need to exist per head: every head attends
to the same cached rows [c ; k_rope] (576 values, 1152 bytes a token) with a query of 576 values,
and the latent-space result is projected once at the end. Three kernels per call:

1. `_absorb_kernel`, grid (row tiles, latent slices, h): q_lat[m, h] = q_nope[m, h] @ w_uk[h], a
   small per-head GEMM (M = batch * s_q, K = qk_nope_head_dim, N = kv_lora_rank), bf16 out.
2. `_split_kernel`, grid (row tiles, splits, batch): a program owns 64 query rows of one request
   (the (query token, head) pairs, all heads sharing one latent) and one slice of `chunk` tokens.
   It walks its tokens BLOCK_N at a time, finds each token's page through the block table, loads
   the 576-wide latent rows once for all 64 rows, and computes S = q_lat c^T + q_rope k_rope^T
   and O += P c with tl.dot (bf16 operands, fp32 accumulation): the value tile is the first 512
   columns of the key tile already loaded. The online softmax is fp32 in the log2 domain (exp2,
   log2(e) folded into the score scale). It writes its normalized latent-space partial output and
   its log2-sum-exp. The row tile is the fastest grid dimension, so the programs that read the
   same latent slice for different heads run together and the second read hits the L2.
3. `_combine_kernel`, grid (row tiles, h): merges the partial states of the splits that hold
   tokens, o_lat = sum_s 2^(lse_s - max) o_s / sum_s 2^(lse_s - max), and applies the value
   up-projection o = o_lat @ w_uv[h]^T in the same program, so the latent-space result never
   goes back to memory.

The split count is chosen on the host from shapes alone (batch, the row tiles, the block table's
token capacity and the SM count), so grids and scratch sizes are the same on every call and the
call can be captured in a CUDA graph. Splits past a query's causal limit do no work and are not
read by the combine.

PyTorch is used only to allocate the output and the scratch buffers and to make views.
"""

import torch
import triton
import triton.language as tl

_LOG2_E = 1.4426950408889634

# Query rows per attention program: the 64-row tensor-core tile of one or two warpgroups.
_BLOCK_H = 64
# Tokens per step of the attention loop, its pipeline depth and warps (two warpgroups, each
# holding half of the 64 x 512 fp32 accumulator). Query tile (72 KiB) plus two stages of 64
# latent rows (72 KiB each) fill the shared memory of one SM.
_BLOCK_N = 64
_NUM_STAGES = 2
_NUM_WARPS = 8
# Split planning: enough programs for this many waves of one program per SM, each split at
# most _MAX_CHUNK tokens (finer slices balance ragged lengths), at most _MAX_SPLITS per row.
_WAVES = 1
_MAX_CHUNK = 4096
_MIN_CHUNK = 256
_MAX_SPLITS = 32
# The combine program: rows of (request, query token) per program and latent columns per step.
_COMBINE_M = 32
_COMBINE_C = 128


@triton.jit
def _absorb_kernel(
    q_ptr, w_ptr, out_ptr, M,
    stride_qm, stride_qh, stride_wh, stride_wd, stride_om, stride_oh,
    NOPE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr,
):
    m_tile = tl.program_id(0)
    c_tile = tl.program_id(1)
    head = tl.program_id(2)
    rows = m_tile * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < M
    dims = tl.arange(0, NOPE)
    cols = c_tile * BLOCK_C + tl.arange(0, BLOCK_C)
    q = tl.load(q_ptr + rows[:, None] * stride_qm + head * stride_qh + dims[None, :],
                mask=row_ok[:, None], other=0.0)
    w = tl.load(w_ptr + head * stride_wh + dims[:, None] * stride_wd + cols[None, :])
    q_lat = tl.dot(q, w)
    tl.store(out_ptr + rows[:, None] * stride_om + head * stride_oh + cols[None, :],
             q_lat.to(out_ptr.dtype.element_ty), mask=row_ok[:, None])


@triton.jit
def _split_kernel(
    q_lat_ptr, q_rope_ptr, kv_ptr, block_table_ptr, seq_lens_ptr, part_o_ptr, part_lse_ptr,
    score_scale_log2, chunk, num_splits, S_Q, H,
    stride_lm, stride_lh, stride_rm, stride_rh, stride_kp, stride_ks, stride_bt,
    LORA: tl.constexpr, ROPE: tl.constexpr, PAGE_SIZE: tl.constexpr,
    BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr,
):
    tile = tl.program_id(0)
    split = tl.program_id(1)
    b = tl.program_id(2)

    # Row r of this request is query token r // H, head r % H.
    r = tile * BLOCK_H + tl.arange(0, BLOCK_H)
    r_ok = r < S_Q * H
    token_q = r // H
    head = r % H
    m_row = b * S_Q + token_q  # row of the [batch * s_q, h, ...] query views

    seq_len = tl.load(seq_lens_ptr + b)
    limit = tl.where(r_ok, seq_len - S_Q + 1 + token_q, 0)  # tokens this row may see
    start = split * chunk
    end = tl.minimum(start + chunk, tl.max(limit, axis=0))

    lat_dims = tl.arange(0, LORA)
    rope_dims = tl.arange(0, ROPE)
    q_lat = tl.load(q_lat_ptr + m_row[:, None] * stride_lm + head[:, None] * stride_lh
                    + lat_dims[None, :], mask=r_ok[:, None], other=0.0)
    q_rope = tl.load(q_rope_ptr + m_row[:, None] * stride_rm + head[:, None] * stride_rh
                     + rope_dims[None, :], mask=r_ok[:, None], other=0.0)

    m_i = tl.full([BLOCK_H], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, LORA], dtype=tl.float32)
    table = block_table_ptr + b * stride_bt
    for n0 in range(start, end, BLOCK_N):
        tokens = n0 + tl.arange(0, BLOCK_N)
        valid = tokens < end
        # Page indirection inside the kernel: token t is slot t % PAGE_SIZE of page
        # block_table[b, t // PAGE_SIZE].
        page = tl.load(table + tokens // PAGE_SIZE, mask=valid, other=0).to(tl.int64)
        row = kv_ptr + page * stride_kp + (tokens % PAGE_SIZE) * stride_ks
        # One load of the latent rows serves every query row of the tile: c is both the key's
        # first 512 columns and the value.
        c = tl.load(row[:, None] + lat_dims[None, :], mask=valid[:, None], other=0.0)
        k_rope = tl.load(row[:, None] + LORA + rope_dims[None, :], mask=valid[:, None], other=0.0)
        s = tl.dot(q_rope, tl.trans(k_rope), tl.dot(q_lat, tl.trans(c)))
        s = s * score_scale_log2
        # A token past the slice, or past the row's causal limit, gets no weight.
        s = tl.where(valid[None, :] & (tokens[None, :] < limit[:, None]), s, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        # A row whose causal limit lies before this slice sees no token: keep its state empty.
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.exp2(m_i - m_safe)
        p = tl.exp2(s - m_safe[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = tl.dot(p.to(c.dtype), c, acc * alpha[:, None])
        m_i = m_new

    # Rows with a token in this slice store their state; the combine kernel reads split s of a
    # row only when s * chunk < its limit, which is exactly when it was stored here.
    stored = r_ok & (start < limit)
    l_safe = tl.where(l_i > 0.0, l_i, 1.0)
    out = acc / l_safe[:, None]
    lse = m_i + tl.log2(l_safe)
    part_row = (m_row * H + head) * num_splits + split
    tl.store(part_o_ptr + part_row[:, None] * LORA + lat_dims[None, :], out,
             mask=stored[:, None])
    tl.store(part_lse_ptr + part_row, lse, mask=stored)


@triton.jit
def _combine_kernel(
    part_o_ptr, part_lse_ptr, seq_lens_ptr, w_uv_ptr, o_ptr,
    chunk, num_splits, M, S_Q, H,
    stride_wh, stride_wv, stride_om, stride_oh,
    LORA: tl.constexpr, V_DIM: tl.constexpr, SPLITS_PAD: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr,
):
    m_tile = tl.program_id(0)
    head = tl.program_id(1)
    m = m_tile * BLOCK_M + tl.arange(0, BLOCK_M)  # row of (request, query token)
    m_ok = m < M
    seq_len = tl.load(seq_lens_ptr + m // S_Q, mask=m_ok, other=1)
    limit = seq_len - S_Q + 1 + m % S_Q
    used = tl.where(m_ok, (limit + chunk - 1) // chunk, 0)
    prow = (m * H + head) * num_splits

    # Weights of the splits: 2^(lse_s - max_s lse_s), normalized.
    splits = tl.arange(0, SPLITS_PAD)
    ok = splits[None, :] < used[:, None]
    lse = tl.load(part_lse_ptr + prow[:, None] + splits[None, :], mask=ok, other=float("-inf"))
    top = tl.max(lse, axis=1)
    top = tl.where(m_ok, top, 0.0)
    total = tl.sum(tl.where(ok, tl.exp2(lse - top[:, None]), 0.0), axis=1)
    inv_total = tl.where(m_ok, 1.0 / total, 0.0)

    out = tl.zeros([BLOCK_M, V_DIM], dtype=tl.float32)
    v_dims = tl.arange(0, V_DIM)
    for c0 in tl.static_range(0, LORA, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        lat = tl.zeros([BLOCK_M, BLOCK_C], dtype=tl.float32)
        for s in range(0, num_splits):
            live = m_ok & (s < used)
            lse_s = tl.load(part_lse_ptr + prow + s, mask=live, other=float("-inf"))
            weight = tl.where(live, tl.exp2(lse_s - top) * inv_total, 0.0)
            part = tl.load(part_o_ptr + (prow + s)[:, None] * LORA + cols[None, :],
                           mask=live[:, None], other=0.0)
            lat += weight[:, None] * part
        # The value up-projection of this latent slice: w_uv[head]^T rows c0 .. c0 + BLOCK_C.
        w = tl.load(w_uv_ptr + head * stride_wh + v_dims[None, :] * stride_wv + cols[:, None])
        out += tl.dot(lat.to(w.dtype), w)
    tl.store(o_ptr + m[:, None] * stride_om + head * stride_oh + v_dims[None, :],
             out.to(o_ptr.dtype.element_ty), mask=m_ok[:, None])


def _plan_splits(batch, row_tiles, max_tokens, num_sms, block_n,
                 waves=_WAVES, max_chunk=_MAX_CHUNK):
    """(num_splits, chunk) from shapes only: enough equal slices of the token capacity that
    batch * row_tiles * num_splits programs fill `waves` waves, no slice longer than max_chunk."""
    programs = batch * row_tiles
    wanted = triton.cdiv(waves * num_sms, programs)
    fewest = triton.cdiv(max_tokens, max_chunk)
    most = max(1, triton.cdiv(max_tokens, _MIN_CHUNK))
    splits = min(max(wanted, fewest), most, _MAX_SPLITS)
    chunk = triton.cdiv(triton.cdiv(max_tokens, splits), block_n) * block_n
    return triton.cdiv(max_tokens, chunk), chunk


def _forward(q_nope, q_rope, kv_cache, block_table, seq_lens, w_uk, w_uv, sm_scale,
             num_splits, chunk, block_n, num_stages, num_warps):
    batch, s_q, h, nope_dim = q_nope.shape
    rope_dim = q_rope.shape[-1]
    page_size, latent_dim = kv_cache.shape[1], kv_cache.shape[2]
    lora = latent_dim - rope_dim
    v_dim = w_uv.shape[1]
    rows = batch * s_q
    device = q_nope.device

    q_nope_2d = q_nope.view(rows, h, nope_dim)
    q_rope_2d = q_rope.view(rows, h, rope_dim)
    q_lat = torch.empty((rows, h, lora), dtype=q_nope.dtype, device=device)
    absorb_m = 64
    absorb_c = 128
    _absorb_kernel[(triton.cdiv(rows, absorb_m), lora // absorb_c, h)](
        q_nope_2d, w_uk, q_lat, rows,
        q_nope_2d.stride(0), q_nope_2d.stride(1), w_uk.stride(0), w_uk.stride(1),
        q_lat.stride(0), q_lat.stride(1),
        NOPE=nope_dim, BLOCK_M=absorb_m, BLOCK_C=absorb_c, num_warps=4,
    )

    part_o = torch.empty((rows * h, num_splits, lora), dtype=torch.float32, device=device)
    part_lse = torch.empty((rows * h, num_splits), dtype=torch.float32, device=device)
    row_tiles = triton.cdiv(s_q * h, _BLOCK_H)
    _split_kernel[(row_tiles, num_splits, batch)](
        q_lat, q_rope_2d, kv_cache, block_table, seq_lens, part_o, part_lse,
        float(sm_scale) * _LOG2_E, chunk, num_splits, s_q, h,
        q_lat.stride(0), q_lat.stride(1), q_rope_2d.stride(0), q_rope_2d.stride(1),
        kv_cache.stride(0), kv_cache.stride(1), block_table.stride(0),
        LORA=lora, ROPE=rope_dim, PAGE_SIZE=page_size, BLOCK_H=_BLOCK_H, BLOCK_N=block_n,
        num_warps=num_warps, num_stages=num_stages,
    )

    out = torch.empty((batch, s_q, h, v_dim), dtype=q_nope.dtype, device=device)
    out_2d = out.view(rows, h, v_dim)
    _combine_kernel[(triton.cdiv(rows, _COMBINE_M), h)](
        part_o, part_lse, seq_lens, w_uv, out_2d,
        chunk, num_splits, rows, s_q, h,
        w_uv.stride(0), w_uv.stride(1), out_2d.stride(0), out_2d.stride(1),
        LORA=lora, V_DIM=v_dim, SPLITS_PAD=max(2, triton.next_power_of_2(num_splits)),
        BLOCK_M=_COMBINE_M, BLOCK_C=_COMBINE_C, num_warps=4,
    )
    return out


def run(q_nope, q_rope, kv_cache, block_table, seq_lens, w_uk, w_uv, sm_scale):
    for name, t in (("q_nope", q_nope), ("q_rope", q_rope), ("kv_cache", kv_cache),
                    ("block_table", block_table), ("w_uk", w_uk), ("w_uv", w_uv)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    page_size = kv_cache.shape[1]
    if page_size & (page_size - 1):
        raise ValueError("page_size must be a power of two")
    batch, s_q, h = q_nope.shape[0], q_nope.shape[1], q_nope.shape[2]
    max_tokens = block_table.shape[1] * page_size
    num_sms = torch.cuda.get_device_properties(q_nope.device).multi_processor_count
    num_splits, chunk = _plan_splits(batch, triton.cdiv(s_q * h, _BLOCK_H), max_tokens, num_sms,
                                     _BLOCK_N)
    return _forward(q_nope, q_rope, kv_cache, block_table, seq_lens, w_uk, w_uv, sm_scale,
                    num_splits, chunk, _BLOCK_N, _NUM_STAGES, _NUM_WARPS)
