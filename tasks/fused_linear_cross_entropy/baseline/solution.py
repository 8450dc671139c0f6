"""Linear cross-entropy in chunks: at most ELEMENTS logits exist at a time.

The count of kept positions comes first (_count_kernel). Phase 1 walks the tokens in chunks of
rows: a tiled Triton matrix product writes the chunk's fp32 logits over the whole vocabulary,
one program per row (_row_kernel) takes its log-sum-exp, adds its loss term and writes the bf16
logit gradient (softmax - one-hot) / count, and a second product gives the chunk's grad_hidden.
Phase 2 walks the vocabulary in chunks: the product recomputes the transposed logits of the chunk
against every token, _grad_t_kernel turns them into the transposed logit gradient with the lse of
phase 1, and a third product gives the chunk's grad_weight.
"""

import torch
import triton
import triton.language as tl

IGNORE_INDEX = -100
# Logits (fp32) and logit gradients (bf16) held at a time.
ELEMENTS = 1 << 25

MM_BLOCK_M, MM_BLOCK_N, MM_BLOCK_K = 128, 128, 32
ROW_BLOCK = 2048
GRAD_BLOCK = 1024


@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                   stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   OUT_BF16: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr):
    """c[M, N] = a[M, K] @ b[K, N], any strides, fp32 accumulation."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k in range(0, K, BLOCK_K):
        kk = k + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    c_mask = (rm[:, None] < M) & (rn[None, :] < N)
    if OUT_BF16:
        tl.store(c_ptrs, acc.to(tl.bfloat16), mask=c_mask)
    else:
        tl.store(c_ptrs, acc, mask=c_mask)


@triton.jit
def _count_kernel(y_ptr, count_ptr, N, IGNORE: tl.constexpr, BLOCK: tl.constexpr):
    kept = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        y = tl.load(y_ptr + offs, mask=offs < N, other=IGNORE)
        kept += (y != IGNORE).to(tl.float32)
    tl.store(count_ptr, tl.sum(kept, axis=0))


@triton.jit
def _row_kernel(logits_ptr, ds_ptr, y_ptr, lse_ptr, count_ptr, loss_ptr, V,
                IGNORE: tl.constexpr, BLOCK: tl.constexpr):
    """One token row of the chunk: lse, loss term, and the bf16 logit-gradient row."""
    row = tl.program_id(0)
    z_row = logits_ptr + row * V
    offs = tl.arange(0, BLOCK)
    run_max = tl.full((BLOCK,), float("-inf"), tl.float32)
    for start in range(0, V, BLOCK):
        z = tl.load(z_row + start + offs, mask=start + offs < V, other=float("-inf"))
        run_max = tl.maximum(run_max, z)
    big_m = tl.max(run_max, axis=0)
    run_sum = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, V, BLOCK):
        z = tl.load(z_row + start + offs, mask=start + offs < V, other=float("-inf"))
        run_sum += tl.exp(z - big_m)
    lse = big_m + tl.log(tl.sum(run_sum, axis=0))
    tl.store(lse_ptr + row, lse)

    y = tl.load(y_ptr + row)
    valid = y != IGNORE
    count = tl.load(count_ptr)
    target = tl.load(z_row + y, mask=valid, other=0.0)
    tl.atomic_add(loss_ptr, tl.where(valid, (lse - target) / count, 0.0))
    scale = tl.where(valid, 1.0 / count, 0.0)
    for start in range(0, V, BLOCK):
        cols = start + offs
        ok = cols < V
        z = tl.load(z_row + cols, mask=ok, other=0.0)
        g = (tl.exp(z - lse) - tl.where(cols == y, 1.0, 0.0)) * scale
        tl.store(ds_ptr + row * V + cols, g.to(tl.bfloat16), mask=ok)


@triton.jit
def _grad_t_kernel(logits_t_ptr, ds_t_ptr, y_ptr, lse_ptr, count_ptr, N, vocab_start,
                   IGNORE: tl.constexpr, BLOCK: tl.constexpr):
    """One vocabulary row of the chunk against a block of tokens: transposed logit gradient."""
    vrow = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < N
    z = tl.load(logits_t_ptr + vrow * N + offs, mask=ok, other=0.0)
    lse = tl.load(lse_ptr + offs, mask=ok, other=0.0)
    y = tl.load(y_ptr + offs, mask=ok, other=IGNORE)
    valid = ok & (y != IGNORE)
    scale = tl.where(valid, 1.0 / tl.load(count_ptr), 0.0)
    g = (tl.exp(z - lse) - tl.where(y == vocab_start + vrow, 1.0, 0.0)) * scale
    tl.store(ds_t_ptr + vrow * N + offs, g.to(tl.bfloat16), mask=ok)


def _matmul(a, b, c, m, n, k, sa, sb, sc, out_bf16):
    grid = (triton.cdiv(m, MM_BLOCK_M), triton.cdiv(n, MM_BLOCK_N))
    _matmul_kernel[grid](a, b, c, m, n, k, sa[0], sa[1], sb[0], sb[1], sc[0], sc[1],
                         OUT_BF16=out_bf16, BLOCK_M=MM_BLOCK_M, BLOCK_N=MM_BLOCK_N,
                         BLOCK_K=MM_BLOCK_K, num_warps=8, num_stages=3)


def run(hidden, weight, targets):
    n, h = hidden.shape
    v = weight.shape[0]
    assert weight.shape[1] == h and targets.shape == (n,)
    assert hidden.is_contiguous() and weight.is_contiguous() and targets.is_contiguous()
    device = hidden.device

    # One row of either phase must fit, however long.
    elements = max(ELEMENTS, v, n)
    logits = torch.empty((elements,), dtype=torch.float32, device=device)
    ds = torch.empty((elements,), dtype=torch.bfloat16, device=device)
    lse = torch.empty((n,), dtype=torch.float32, device=device)
    count = torch.empty((1,), dtype=torch.float32, device=device)
    loss = torch.zeros((), dtype=torch.float32, device=device)
    grad_hidden = torch.empty((n, h), dtype=torch.bfloat16, device=device)
    grad_weight = torch.empty((v, h), dtype=torch.bfloat16, device=device)
    _count_kernel[(1,)](targets, count, n, IGNORE=IGNORE_INDEX, BLOCK=1024, num_warps=4)

    # Phase 1: token chunks of `rows` rows against the whole vocabulary.
    rows = max(1, min(n, elements // v))
    for start in range(0, n, rows):
        r = min(rows, n - start)
        h_chunk = hidden[start:start + r]
        # logits[r, v] = h_chunk @ weight^T
        _matmul(h_chunk, weight, logits, r, v, h, (h, 1), (1, h), (v, 1), False)
        _row_kernel[(r,)](logits, ds, targets[start:start + r], lse[start:start + r], count,
                          loss, v, IGNORE=IGNORE_INDEX, BLOCK=ROW_BLOCK, num_warps=8)
        # grad_hidden[start:start + r] = ds[r, v] @ weight[v, h]
        _matmul(ds, weight, grad_hidden[start:start + r], r, h, v, (v, 1), (h, 1), (h, 1), True)

    # Phase 2: vocabulary chunks of `vocab` rows against every token.
    vocab = max(1, min(v, elements // n))
    for start in range(0, v, vocab):
        c = min(vocab, v - start)
        w_chunk = weight[start:start + c]
        # logits_t[c, n] = w_chunk @ hidden^T
        _matmul(w_chunk, hidden, logits, c, n, h, (h, 1), (1, h), (n, 1), False)
        _grad_t_kernel[(c, triton.cdiv(n, GRAD_BLOCK))](
            logits, ds, targets, lse, count, n, start,
            IGNORE=IGNORE_INDEX, BLOCK=GRAD_BLOCK, num_warps=4)
        # grad_weight[start:start + c] = ds_t[c, n] @ hidden[n, h]
        _matmul(ds, hidden, grad_weight[start:start + c], c, h, n, (n, 1), (h, 1), (h, 1), True)
    return loss, grad_hidden, grad_weight
