"""Baseline: the direct five-step recurrence, written as plain custom Triton kernels.

This is the kind of first correct submission the benchmark measures speedups against. It
follows the reference step by step and makes no use of the Gram-side composition:

    sumsq[b] = sum(fp32(G[b])**2)                   (_sumsq_kernel, atomics into fp32 [batch])
    X        = fp16(fp32(G) / (sqrt(sumsq) + 1e-7))  (_normalize_kernel)
    for (a, b, c) in the five coefficient triples:
        A  = X @ X^T                                 (_bmm_kernel, M x M, fp16 store)
        P  = c * (A @ A) + b * A                     (_bmm_kernel with a fused add, fp16 store)
        X' = 1.0 * (P @ X) + a * X                   (_bmm_kernel with a fused add)
    the last X' is stored straight into the bf16 (G.dtype) output.

The GEMM kernel takes each operand as a row-major buffer or its transpose (a leading dimension
plus a flag), so X^T is X with its two strides swapped and no transposed copy is made. Every
product is a full dense batched GEMM: both halves of the symmetric A and A @ A are computed,
and a new rectangular iterate is written after every step.

Numerics versus reference.py. The reference keeps every iterate in fp16, rounds A = X X^T to fp16,
rounds A @ A to fp16, then rounds b*A, c*(A@A), their sum, P @ X, a*X and the final sum to fp16
one by one (each PyTorch half op rounds its result). This baseline rounds at the same points or at
fewer: A is rounded to fp16 once (it is an operand of the next products, as in the reference);
c*(A@A) + b*A is formed from the fp32 accumulator and rounded once; P @ X + a*X is formed in fp32
and rounded once to fp16 (or, on the last step, once to bf16 instead of fp16 followed by bf16).
All GEMMs accumulate in fp32, as cuBLAS does for the reference. Dropping intermediate roundings
only removes error, so the remaining difference is accumulation order plus fewer half-precision
roundings, which is what the 0.012 relative-norm gate is meant to absorb.

PyTorch is used only for torch.empty / torch.zeros allocations and views.
"""

import torch
import triton
import triton.language as tl

_COEFFICIENTS = (
    (7.892582874424408, -20.38301394587957, 13.555306149406924),
    (3.911484868135431, -2.5464635929060884, 0.4268988319673074),
    (3.760657955697423, -2.512819018216563, 0.4323647349070073),
    (3.160399673686287, -2.149649518898498, 0.3996366907664389),
    (2.1910971618617303, -1.441662010214663, 0.328146487623155),
)
_EPS = 1e-7

# Row-block shape of the two elementwise passes over G.
_NORM_ROWS = 8
_NORM_COLS = 512

# GEMM tiling (fp16 operands, fp32 accumulator). 3 stages x (128x64 + 64x128) x 2 B = 96 KiB smem.
_BM, _BN, _BK = 128, 128, 64
_GROUP_M = 8
_GEMM_WARPS = 8
_GEMM_STAGES = 3


@triton.jit
def _sumsq_kernel(
    g_ptr, sumsq_ptr, M, N,
    s_gb, s_gm, s_gn,
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    # grid = (cdiv(M, BLOCK_R), batch): each program sums BLOCK_R full rows of one matrix.
    pid_r = tl.program_id(0)
    bid = tl.program_id(1).to(tl.int64)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    row_ok = rows < M
    row_off = rows.to(tl.int64)[:, None] * s_gm
    base = g_ptr + bid * s_gb
    acc = tl.zeros((BLOCK_R, BLOCK_C), dtype=tl.float32)
    for c0 in range(0, N, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        mask = row_ok[:, None] & (cols[None, :] < N)
        v = tl.load(base + row_off + cols.to(tl.int64)[None, :] * s_gn, mask=mask, other=0.0)
        v = v.to(tl.float32)
        acc += v * v
    part = tl.sum(tl.sum(acc, axis=1), axis=0)
    tl.atomic_add(sumsq_ptr + bid, part)


@triton.jit
def _normalize_kernel(
    g_ptr, sumsq_ptr, x_ptr, M, N,
    s_gb, s_gm, s_gn,
    s_xb, s_xm, s_xn,
    eps,
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    # grid = (cdiv(M, BLOCK_R), batch): X = fp16(fp32(G) / (||G||_F + eps)).
    pid_r = tl.program_id(0)
    bid = tl.program_id(1).to(tl.int64)
    denom = tl.sqrt(tl.load(sumsq_ptr + bid)) + eps
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    row_ok = rows < M
    rows64 = rows.to(tl.int64)[:, None]
    g_base = g_ptr + bid * s_gb + rows64 * s_gm
    x_base = x_ptr + bid * s_xb + rows64 * s_xm
    for c0 in range(0, N, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        cols64 = cols.to(tl.int64)[None, :]
        mask = row_ok[:, None] & (cols[None, :] < N)
        v = tl.load(g_base + cols64 * s_gn, mask=mask, other=0.0).to(tl.float32)
        tl.store(x_base + cols64 * s_xn, (v / denom).to(x_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _bmm_kernel(
    a_ptr, b_ptr, c_ptr, d_ptr,
    M, N, K,
    s_ab, lda, s_bb, ldb, s_cb, ldc, s_db, ldd,
    alpha, beta,
    A_T: tl.constexpr, B_T: tl.constexpr, HAS_D: tl.constexpr, VEC: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    # C[b] = alpha * (A[b] @ B[b]) + beta * D[b]   (D term only when HAS_D), grid = (tiles, batch).
    # Logical shapes: A[b] is M x K, B[b] is K x N, C[b] and D[b] are M x N and row-major.
    # Each operand has one unit stride; the other is its leading dimension. A_T / B_T say that
    # the operand is the transpose of a row-major buffer, so X^T is X with its strides swapped:
    #   A(m, k) = a[m * lda + k]  or, if A_T, a[m + k * lda]
    #   B(k, n) = b[k * ldb + n]  or, if B_T, b[k + n * ldb]
    if VEC > 1:
        # The host checked that M, N, K and every leading dimension are multiples of VEC.
        # Writing them as (x // VEC) * VEC keeps the values and lets the compiler prove 16-byte
        # alignment (it only specializes integer arguments on divisibility by 16), so rows of
        # 5464 fp16 elements still get vector loads and vectorizable boundary masks.
        M = (M // VEC) * VEC
        N = (N // VEC) * VEC
        K = (K // VEC) * VEC
        lda = (lda // VEC) * VEC
        ldb = (ldb // VEC) * VEC
        ldc = (ldc // VEC) * VEC
        ldd = (ldd // VEC) * VEC

    pid = tl.program_id(0)
    bid = tl.program_id(1).to(tl.int64)

    # Grouped tile order so that consecutive programs share A row-panels in L2.
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N

    # Batch offsets in int64; the per-matrix offsets stay far below 2**31 for this task's
    # shapes (at most 7168 * 18432), and the K advance is applied to the 64-bit pointers.
    if A_T:
        a_ptrs = a_ptr + bid * s_ab + (rm[:, None] + rk[None, :] * lda)
        a_step = BLOCK_K * lda
    else:
        a_ptrs = a_ptr + bid * s_ab + (rm[:, None] * lda + rk[None, :])
        a_step = BLOCK_K
    if B_T:
        b_ptrs = b_ptr + bid * s_bb + (rk[:, None] + rn[None, :] * ldb)
        b_step = BLOCK_K
    else:
        b_ptrs = b_ptr + bid * s_bb + (rk[:, None] * ldb + rn[None, :])
        b_step = BLOCK_K * ldb

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_ok = (k0 + rk) < K
        a = tl.load(a_ptrs, mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_ok[:, None] & n_ok[None, :], other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += a_step
        b_ptrs += b_step

    out = acc * alpha
    c_mask = m_ok[:, None] & n_ok[None, :]
    if HAS_D:
        d_ptrs = d_ptr + bid * s_db + (rm[:, None] * ldd + rn[None, :])
        d = tl.load(d_ptrs, mask=c_mask, other=0.0).to(tl.float32)
        out += beta * d
    c_ptrs = c_ptr + bid * s_cb + (rm[:, None] * ldc + rn[None, :])
    tl.store(c_ptrs, out.to(c_ptr.dtype.element_ty), mask=c_mask)


def _layout(t):
    """(batch stride, leading dimension, transposed?) of a 3-D view with one unit stride."""
    sb, s1, s2 = t.stride()
    if s2 == 1 or t.shape[2] == 1:
        return sb, s1, False
    if s1 == 1 or t.shape[1] == 1:
        return sb, s2, True
    raise ValueError("GEMM operands need one unit stride in their last two dimensions")


def _bmm(a, b, c, alpha=1.0, d=None, beta=0.0):
    """c = alpha * (a @ b) + beta * d over a leading batch dim; all arguments are 3-D views.

    a and b may be row-major buffers or transposed views of them; c and d must be row-major.
    """
    batch, m, k = a.shape
    n = b.shape[2]
    s_ab, lda, a_t = _layout(a)
    s_bb, ldb, b_t = _layout(b)
    s_cb, ldc, c_t = _layout(c)
    if c_t:
        raise ValueError("the GEMM output must be row-major")
    if d is None:
        d_arg, s_db, ldd, has_d = c, 0, ldc, False
    else:
        s_db, ldd, d_t = _layout(d)
        if d_t:
            raise ValueError("the GEMM addend must be row-major")
        d_arg, has_d = d, True
    # Alignment hint: 8 fp16 elements are 16 bytes.
    vec = 8 if all(x % 8 == 0 for x in (m, n, k, lda, ldb, ldc, ldd)) else 1
    grid = (triton.cdiv(m, _BM) * triton.cdiv(n, _BN), batch)
    _bmm_kernel[grid](
        a, b, c, d_arg,
        m, n, k,
        s_ab, lda, s_bb, ldb, s_cb, ldc, s_db, ldd,
        float(alpha), float(beta),
        A_T=a_t, B_T=b_t, HAS_D=has_d, VEC=vec,
        BLOCK_M=_BM, BLOCK_N=_BN, BLOCK_K=_BK, GROUP_M=_GROUP_M,
        num_warps=_GEMM_WARPS, num_stages=_GEMM_STAGES,
    )


def _as_batched(t):
    # View any [..., M, N] tensor as [batch, M, N] without copying where a view exists.
    if t.ndim == 2:
        return t.unsqueeze(0)
    if t.ndim == 3:
        return t
    return t.reshape(-1, t.shape[-2], t.shape[-1])


def run(G, steps=5):
    if G.ndim < 2:
        raise ValueError("G needs at least two dimensions; the last two form each matrix")
    if steps != 5:
        raise ValueError(f"steps must be 5 for this operator, got {steps}")
    if not G.is_cuda:
        raise ValueError("G must be a CUDA tensor")

    out = torch.empty(G.shape, dtype=G.dtype, device=G.device)
    if G.numel() == 0:
        return out

    g3 = _as_batched(G)
    out3 = out.view(-1, G.shape[-2], G.shape[-1])
    batch, m, n = g3.shape
    dev = G.device

    # Workspace: two fp16 iterates (ping-pong), the Gram A and the polynomial P (both M x M).
    x_cur = torch.empty((batch, m, n), dtype=torch.float16, device=dev)
    x_nxt = torch.empty((batch, m, n), dtype=torch.float16, device=dev)
    gram = torch.empty((batch, m, m), dtype=torch.float16, device=dev)
    poly = torch.empty((batch, m, m), dtype=torch.float16, device=dev)
    sumsq = torch.zeros((batch,), dtype=torch.float32, device=dev)

    norm_grid = (triton.cdiv(m, _NORM_ROWS), batch)
    _sumsq_kernel[norm_grid](
        g3, sumsq, m, n, *g3.stride(),
        BLOCK_R=_NORM_ROWS, BLOCK_C=_NORM_COLS, num_warps=4,
    )
    _normalize_kernel[norm_grid](
        g3, sumsq, x_cur, m, n, *g3.stride(), *x_cur.stride(), _EPS,
        BLOCK_R=_NORM_ROWS, BLOCK_C=_NORM_COLS, num_warps=4,
    )

    last = len(_COEFFICIENTS) - 1
    for step, (a, b, c) in enumerate(_COEFFICIENTS):
        _bmm(x_cur, x_cur.transpose(1, 2), gram)                   # A = X X^T
        _bmm(gram, gram, poly, alpha=c, d=gram, beta=b)            # P = c A^2 + b A
        dst = out3 if step == last else x_nxt
        _bmm(poly, x_cur, dst, alpha=1.0, d=x_cur, beta=a)         # X' = P X + a X
        x_cur, x_nxt = x_nxt, x_cur
    return out
