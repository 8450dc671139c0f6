"""Fused linear cross-entropy: the loss and both gradients without any [N, V] tensor.

Forward (two kernels):
  1. _lse_partial_kernel, grid (token blocks, vocabulary splits): every program computes the
     logit tiles of its token block over its slice of the vocabulary with tensor-core products
     (fp32 accumulation) and keeps only an online (max, sum of exponentials) per row, plus the
     target's logit when the target falls in its slice. Nothing of the tiles leaves registers.
  2. _combine_kernel, one program: merges the per-split states into lse [N], counts the kept
     positions and writes the mean loss.
Backward, per vocabulary chunk of VOCAB_CHUNK rows (so that the fp32 accumulator of grad_weight
stays VOCAB_CHUNK x H, whatever V is):
  3. _backward_kernel, one program per (token block, vocabulary tile) of the chunk: recomputes
     the logit tile, forms g = softmax - one-hot in registers from the stored lse, skips the
     tile when every |g| is below FILTER_EPS (gradient filtering: such entries are below bf16
     resolution of the gradients they feed), and otherwise rounds g / count to bf16 and feeds
     it to both gradient products, adding the results atomically into the fp32 accumulators of
     grad_hidden [N, H] and of the chunk of grad_weight.
  4. _cast_kernel: writes the chunk of grad_weight in bf16 and clears its accumulator for the
     next chunk; after the last chunk, grad_hidden is written in bf16 the same way.
"""

import torch
import triton
import triton.language as tl

IGNORE_INDEX = -100
# Logit-gradient tiles whose entries are all below this (before the 1/count scaling) are skipped.
FILTER_EPS = 2.0 ** -12
# Rows of grad_weight accumulated in fp32 at a time.
VOCAB_CHUNK = 16384

FWD_BLOCK_M, FWD_BLOCK_N, FWD_BLOCK_K = 128, 128, 64
BWD_BLOCK_M, BWD_BLOCK_N, BWD_BLOCK_K, BWD_BLOCK_OUT = 128, 128, 64, 64
BWD_GROUP_M = 8
COMBINE_BLOCK = 1024
CAST_BLOCK = 4096


@triton.jit
def _lse_partial_kernel(h_ptr, w_ptr, y_ptr, m_ptr, s_ptr, t_ptr,
                        N, V, H, tiles_per_split, stride_h, stride_w,
                        IGNORE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_s = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < N
    y = tl.load(y_ptr + rows, mask=row_ok, other=IGNORE)
    offs_k = tl.arange(0, BLOCK_K)

    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    s_i = tl.zeros((BLOCK_M,), tl.float32)
    t_i = tl.zeros((BLOCK_M,), tl.float32)
    num_tiles = tl.cdiv(V, BLOCK_N)
    first_tile = pid_s * tiles_per_split
    last_tile = tl.minimum(first_tile + tiles_per_split, num_tiles)
    for tile in range(first_tile, last_tile):
        cols = tile * BLOCK_N + tl.arange(0, BLOCK_N)
        col_ok = cols < V
        acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
        for k in range(0, H, BLOCK_K):
            kk = k + offs_k
            k_ok = kk < H
            a = tl.load(h_ptr + rows[:, None] * stride_h + kk[None, :],
                        mask=row_ok[:, None] & k_ok[None, :], other=0.0)        # [BM, BK]
            b = tl.load(w_ptr + cols[None, :] * stride_w + kk[:, None],
                        mask=col_ok[None, :] & k_ok[:, None], other=0.0)        # [BK, BN]
            acc = tl.dot(a, b, acc)
        acc = tl.where(col_ok[None, :], acc, float("-inf"))
        t_i += tl.sum(tl.where(cols[None, :] == y[:, None], acc, 0.0), axis=1)
        # Every tile below num_tiles has at least one valid column, so m_new is finite.
        m_new = tl.maximum(m_i, tl.max(acc, axis=1))
        s_i = s_i * tl.exp(m_i - m_new) + tl.sum(tl.exp(acc - m_new[:, None]), axis=1)
        m_i = m_new
    out = pid_s * N + rows
    tl.store(m_ptr + out, m_i, mask=row_ok)
    tl.store(s_ptr + out, s_i, mask=row_ok)
    tl.store(t_ptr + out, t_i, mask=row_ok)


@triton.jit
def _combine_kernel(m_ptr, s_ptr, t_ptr, y_ptr, lse_ptr, loss_ptr, count_ptr, N, SPLITS,
                    IGNORE: tl.constexpr, BLOCK: tl.constexpr):
    total = tl.zeros((BLOCK,), tl.float32)
    kept = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        rows = start + tl.arange(0, BLOCK)
        ok = rows < N
        big_m = tl.full((BLOCK,), float("-inf"), tl.float32)
        for s in range(0, SPLITS):
            big_m = tl.maximum(big_m, tl.load(m_ptr + s * N + rows, mask=ok, other=float("-inf")))
        big_m = tl.where(ok, big_m, 0.0)
        sum_exp = tl.zeros((BLOCK,), tl.float32)
        target = tl.zeros((BLOCK,), tl.float32)
        for s in range(0, SPLITS):
            m_s = tl.load(m_ptr + s * N + rows, mask=ok, other=float("-inf"))
            s_s = tl.load(s_ptr + s * N + rows, mask=ok, other=0.0)
            sum_exp += s_s * tl.exp(m_s - big_m)
            target += tl.load(t_ptr + s * N + rows, mask=ok, other=0.0)
        lse = big_m + tl.log(sum_exp)
        tl.store(lse_ptr + rows, lse, mask=ok)
        y = tl.load(y_ptr + rows, mask=ok, other=IGNORE)
        valid = ok & (y != IGNORE)
        total += tl.where(valid, lse - target, 0.0)
        kept += valid.to(tl.float32)
    count = tl.sum(kept, axis=0)
    tl.store(loss_ptr, tl.sum(total, axis=0) / count)
    tl.store(count_ptr, count)


@triton.jit
def _backward_kernel(h_ptr, w_ptr, y_ptr, lse_ptr, count_ptr, dh_acc_ptr, dw_acc_ptr,
                     N, H, vocab_start, vocab_count, stride_h, stride_w, filter_eps,
                     IGNORE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr, BLOCK_OUT: tl.constexpr, GROUP_M: tl.constexpr):
    # Grouped order: GROUP_M token blocks walk the vocabulary tiles together, so each W tile
    # and each token block is reused from L2.
    pid = tl.program_id(0)
    num_m = tl.cdiv(N, BLOCK_M)
    num_n = tl.cdiv(vocab_count, BLOCK_N)
    in_group = GROUP_M * num_n
    first_m = (pid // in_group) * GROUP_M
    group_rows = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_rows
    pid_n = (pid % in_group) // group_rows

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < N
    local = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)     # row of the chunk accumulator
    col_ok = local < vocab_count
    cols = vocab_start + local                           # vocabulary id
    y = tl.load(y_ptr + rows, mask=row_ok, other=IGNORE)
    valid = row_ok & (y != IGNORE)
    lse = tl.load(lse_ptr + rows, mask=row_ok, other=0.0)

    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k in range(0, H, BLOCK_K):
        kk = k + offs_k
        k_ok = kk < H
        a = tl.load(h_ptr + rows[:, None] * stride_h + kk[None, :],
                    mask=row_ok[:, None] & k_ok[None, :], other=0.0)
        b = tl.load(w_ptr + cols[None, :] * stride_w + kk[:, None],
                    mask=col_ok[None, :] & k_ok[:, None], other=0.0)
        acc = tl.dot(a, b, acc)

    onehot = tl.where(cols[None, :] == y[:, None], 1.0, 0.0)
    g = tl.exp(acc - lse[:, None]) - onehot
    g = tl.where(valid[:, None] & col_ok[None, :], g, 0.0)
    biggest = tl.max(tl.max(tl.abs(g), axis=1), axis=0)
    if biggest >= filter_eps:
        inv_count = 1.0 / tl.load(count_ptr)
        ds = (g * inv_count).to(tl.bfloat16)              # [BM, BN]
        offs_o = tl.arange(0, BLOCK_OUT)
        for k in range(0, H, BLOCK_OUT):
            kk = k + offs_o
            k_ok = kk < H
            w_blk = tl.load(w_ptr + cols[:, None] * stride_w + kk[None, :],
                            mask=col_ok[:, None] & k_ok[None, :], other=0.0)   # [BN, BO]
            dh_part = tl.dot(ds, w_blk)                                        # [BM, BO]
            tl.atomic_add(dh_acc_ptr + rows[:, None] * H + kk[None, :], dh_part,
                          mask=valid[:, None] & k_ok[None, :], sem="relaxed")
            # The grad_weight tile is formed transposed, h^T ds, with h read transposed from
            # memory: transposing ds in registers (an MMA result) would feed the second product
            # a layout that Triton 3.4+ miscompiles on Hopper.
            h_t = tl.load(h_ptr + rows[None, :] * stride_h + kk[:, None],
                          mask=row_ok[None, :] & k_ok[:, None], other=0.0)     # [BO, BM]
            dw_part_t = tl.dot(h_t, ds)                                        # [BO, BN]
            tl.atomic_add(dw_acc_ptr + local[None, :] * H + kk[:, None], dw_part_t,
                          mask=col_ok[None, :] & k_ok[:, None], sem="relaxed")


@triton.jit
def _cast_kernel(src_ptr, dst_ptr, numel, CLEAR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < numel
    x = tl.load(src_ptr + offs, mask=ok, other=0.0)
    tl.store(dst_ptr + offs, x.to(tl.bfloat16), mask=ok)
    if CLEAR:
        tl.store(src_ptr + offs, tl.zeros((BLOCK,), tl.float32), mask=ok)


def _vocab_splits(n, v, device):
    """Vocabulary splits of the forward pass: enough programs for about two waves."""
    m_blocks = triton.cdiv(n, FWD_BLOCK_M)
    tiles = triton.cdiv(v, FWD_BLOCK_N)
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    splits = max(1, min(tiles, triton.cdiv(2 * sms, m_blocks)))
    tiles_per_split = triton.cdiv(tiles, splits)
    return triton.cdiv(tiles, tiles_per_split), tiles_per_split


def run(hidden, weight, targets):
    n, h = hidden.shape
    v, h_w = weight.shape
    assert h_w == h and targets.shape == (n,)
    assert hidden.dtype == torch.bfloat16 and weight.dtype == torch.bfloat16
    assert targets.dtype == torch.int64
    assert hidden.stride(1) == 1 and weight.stride(1) == 1 and targets.is_contiguous()
    device = hidden.device

    # Forward: partial softmax states per vocabulary split, then lse, count and loss.
    splits, tiles_per_split = _vocab_splits(n, v, device)
    part = torch.empty((3, splits, n), dtype=torch.float32, device=device)
    _lse_partial_kernel[(triton.cdiv(n, FWD_BLOCK_M), splits)](
        hidden, weight, targets, part[0], part[1], part[2],
        n, v, h, tiles_per_split, hidden.stride(0), weight.stride(0),
        IGNORE=IGNORE_INDEX, BLOCK_M=FWD_BLOCK_M, BLOCK_N=FWD_BLOCK_N, BLOCK_K=FWD_BLOCK_K,
        num_warps=8, num_stages=3)
    lse = torch.empty((n,), dtype=torch.float32, device=device)
    loss = torch.empty((), dtype=torch.float32, device=device)
    count = torch.empty((1,), dtype=torch.float32, device=device)
    _combine_kernel[(1,)](part[0], part[1], part[2], targets, lse, loss, count, n, splits,
                          IGNORE=IGNORE_INDEX, BLOCK=COMBINE_BLOCK, num_warps=4)

    # Backward: recompute, filter, and accumulate both gradients, one vocabulary chunk at a time.
    grad_hidden = torch.empty((n, h), dtype=torch.bfloat16, device=device)
    grad_weight = torch.empty((v, h), dtype=torch.bfloat16, device=device)
    dh_acc = torch.zeros((n, h), dtype=torch.float32, device=device)
    dw_acc = torch.zeros((min(VOCAB_CHUNK, v), h), dtype=torch.float32, device=device)
    m_blocks = triton.cdiv(n, BWD_BLOCK_M)
    for start in range(0, v, VOCAB_CHUNK):
        chunk = min(VOCAB_CHUNK, v - start)
        grid = (m_blocks * triton.cdiv(chunk, BWD_BLOCK_N),)
        _backward_kernel[grid](
            hidden, weight, targets, lse, count, dh_acc, dw_acc,
            n, h, start, chunk, hidden.stride(0), weight.stride(0), FILTER_EPS,
            IGNORE=IGNORE_INDEX, BLOCK_M=BWD_BLOCK_M, BLOCK_N=BWD_BLOCK_N, BLOCK_K=BWD_BLOCK_K,
            BLOCK_OUT=BWD_BLOCK_OUT, GROUP_M=BWD_GROUP_M, num_warps=8, num_stages=3)
        numel = chunk * h
        _cast_kernel[(triton.cdiv(numel, CAST_BLOCK),)](
            dw_acc, grad_weight[start:start + chunk], numel,
            CLEAR=True, BLOCK=CAST_BLOCK, num_warps=4)
    _cast_kernel[(triton.cdiv(n * h, CAST_BLOCK),)](
        dh_acc, grad_hidden, n * h, CLEAR=False, BLOCK=CAST_BLOCK, num_warps=4)
    return loss, grad_hidden, grad_weight
