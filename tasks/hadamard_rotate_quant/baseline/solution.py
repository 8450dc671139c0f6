"""Baseline: the rotation as a dense matrix product on tensor cores, then a quantization kernel.

Kernel 1 multiplies row blocks of x by tiles of H_n = H_m (x) H_p generated in registers (the
Sylvester sign is the parity of k & l, the special factor one Paley entry per tile, since every
tile lies inside one chunk pair) with bf16 operands (exact: +-1 entries and bf16 inputs) and
fp32 accumulation, and writes the unnormalized rotated rows in fp32. Kernel 2 reads each row
twice (amax, then scale and e4m3 rounding) and writes y and the scale.
"""

import math

import torch
import triton
import triton.language as tl

SPECIAL = {12: (11, 1), 20: (19, 1), 28: (13, 2)}


def split_order(n):
    odd = n // (n & (-n))
    m = 1 if odd == 1 else 4 * odd
    if (m != 1 and m not in SPECIAL) or n % m != 0:
        raise ValueError(f"unsupported n = {n}")
    return m, n // m


@triton.jit
def _chi(d, Q: tl.constexpr):
    """Legendre symbol of d modulo the prime Q (d any integer)."""
    d = ((d % Q) + Q) % Q
    is_square = d < 0  # False, with d's type
    for k in tl.static_range(1, Q):
        is_square = is_square | (d == (k * k) % Q)
    return tl.where(d == 0, 0, tl.where(is_square, 1, -1))


@triton.jit
def _special_entry(a, b, M: tl.constexpr, Q: tl.constexpr, KIND: tl.constexpr):
    """H_M[a, b] for chunk indices a, b (Paley I for KIND 1, Paley II for KIND 2)."""
    if M == 1:
        return a * 0 + 1
    elif KIND == 1:
        return tl.where(a == b, 1, tl.where(a == 0, 1, tl.where(b == 0, -1, _chi(b - a, Q))))
    else:
        ca = a // 2
        cb = b // 2
        s = a % 2
        t = b % 2
        conference = tl.where(ca == cb, 0, tl.where((ca == 0) | (cb == 0), 1, _chi(cb - ca, Q)))
        outer = tl.where((s == 0) & (t == 0), 1, -1)
        inner = tl.where((s == 1) & (t == 1), -1, 1)
        return conference * outer + tl.where(ca == cb, inner, 0)


@triton.jit
def _rotate_dense_kernel(x_ptr, out_ptr, rows,
                         N: tl.constexpr, P: tl.constexpr, M: tl.constexpr, Q: tl.constexpr,
                         KIND: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rm < rows
    col_chunk = (pid_n * BLOCK_N) // P
    sn = rn % P
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, N, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(x_ptr + rm[:, None] * N + rk[None, :], mask=row_mask[:, None], other=0.0)
        v = (rk % P)[:, None] & sn[None, :]
        v = v ^ (v >> 16)
        v = v ^ (v >> 8)
        v = v ^ (v >> 4)
        v = v ^ (v >> 2)
        v = v ^ (v >> 1)
        sign = 1 - 2 * (v & 1)
        entry = _special_entry(k0 // P, col_chunk, M, Q, KIND)
        h = (sign * entry).to(tl.bfloat16)
        acc += tl.dot(a, h)
    out = out_ptr + rm[:, None] * N + rn[None, :]
    tl.store(out, acc, mask=row_mask[:, None])


@triton.jit
def _quantize_kernel(r_ptr, y_ptr, scale_ptr, N: tl.constexpr, inv_sqrt_n,
                     BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    running = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(r_ptr + base + offs, mask=offs < N, other=0.0)
        running = tl.maximum(running, tl.abs(v))
    amax = tl.maximum(tl.max(running, axis=0) * inv_sqrt_n, 1e-4)
    scale = amax / 448.0
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(r_ptr + base + offs, mask=offs < N, other=0.0)
        q = tl.minimum(tl.maximum((v * inv_sqrt_n) / scale, -448.0), 448.0)
        q = q.to(tl.float8e4nv).to(tl.float32).to(tl.bfloat16)
        tl.store(y_ptr + base + offs, q, mask=offs < N)
    tl.store(scale_ptr + row, scale)


def run(x):
    assert x.dim() == 3 and x.dtype == torch.bfloat16 and x.is_contiguous()
    tokens, heads, n = x.shape
    rows = tokens * heads
    m, p = split_order(n)
    q, kind = SPECIAL.get(m, (2, 1))
    block_k = 64 if m == 1 else min(64, p)
    block_n = min(128, n if m == 1 else p)
    block_m = 128
    assert n % block_k == 0 and n % block_n == 0

    rotated = torch.empty((rows, n), dtype=torch.float32, device=x.device)
    y = torch.empty((tokens, heads, n), dtype=torch.bfloat16, device=x.device)
    scales = torch.empty((tokens, heads), dtype=torch.float32, device=x.device)
    if rows == 0:
        return y, scales
    grid = (triton.cdiv(rows, block_m), n // block_n)
    _rotate_dense_kernel[grid](x, rotated, rows, N=n, P=p, M=m, Q=q, KIND=kind,
                               BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                               num_warps=8, num_stages=3)
    _quantize_kernel[(rows,)](rotated, y, scales, N=n, inv_sqrt_n=1.0 / math.sqrt(n),
                              BLOCK=min(4096, triton.next_power_of_2(n)), num_warps=8)
    return y, scales
