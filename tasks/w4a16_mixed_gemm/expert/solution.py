"""Expert: W4A16 GEMM that forms every weight in registers right before the tensor-core product.

One launch of _w4a16_kernel computes, per program, a [BLOCK_N, BLOCK_M] tile of y^T over one
slice of K:

  * The weight is the left operand. The tile's packed codes are one [BLOCK_N, BLOCK_K / 8] int32
    load per K step (each word is 8 consecutive rows of K of one column, exactly what one
    column of the operand needs); the codes are unpacked with shifts and masks and turned into
    floats with the exponent trick (code | 0x4B000000 read as fp32 is 2^23 + code), so no
    integer-to-float conversion runs; subtracting 2^23 + zero (also formed by the trick, once per
    column and group) gives code - zero exactly, and one multiply by the group scale gives the
    weight, rounded once to bf16, bit for bit the reference's weight. The bf16 tile then goes
    straight into tl.dot as the left operand: the dequantized weight never leaves the SM.
  * The activations are the right operand, [BLOCK_K, BLOCK_M] (x^T), so a decode batch of 1..16
    rows is the narrow side of the product (16 columns) instead of padding 64-row tiles.
  * BLOCK_K never exceeds the quantization group (128 rows), so every K step reads one scale and
    one zero word per column: the group parameters are loaded once per group per tile.
  * Weights stream with an evict-first hint (read exactly once per call); x and the group
    parameters are small and stay in the L2.
  * Split-K: a plan from shapes and the SM count cuts K into slices so that decode shapes (tens
    of output tiles) keep every SM streaming weights, and prefill shapes fill the last wave.
    Each slice writes an fp32 partial [M, N]; _sum_splits_kernel adds the slices in a fixed
    order and rounds y once to bf16 (deterministic, no atomics). With one slice the main kernel
    writes bf16 y directly.

Programs are numbered with the M tile fastest, so the programs that share a weight tile (prefill
has 2 M tiles) run together and read it once from HBM.

Numerics: the weights are the reference's bf16 values exactly; products accumulate in fp32 on the
tensor cores; y is rounded once. Only the order of the fp32 sums differs from the reference.

PyTorch is used only to allocate y and the partial buffer.
"""

import torch
import triton
import triton.language as tl

# fp32 with exponent field 2^23: the low 23 mantissa bits hold an integer exactly.
_MAGIC_F32 = tl.constexpr(0x4B000000)


@triton.jit
def _w4a16_kernel(
    x_ptr, qw_ptr, s_ptr, qz_ptr, y_ptr, part_ptr,
    M, N, K, steps_per_split,
    GROUP: tl.constexpr,
    BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
    WRITE_PARTIAL: tl.constexpr, UNPACK_RESHAPE: tl.constexpr,
):
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    num_m = tl.cdiv(M, BLOCK_M)
    pid_m = pid % num_m          # M tile fastest: programs sharing a weight tile run together
    pid_n = pid // num_m

    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)        # output columns (rows of y^T)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)        # activation rows (columns of y^T)
    n_ok = offs_n < N
    m_ok = offs_m < M
    offs_p = tl.arange(0, BLOCK_K // 8)                     # packed words of one K step
    offs_kk = tl.arange(0, BLOCK_K)
    nibble_shift = tl.arange(0, 8) * 4                      # row 8 p + i sits in bits 4 i..4 i+3
    zero_shift = (offs_n % 8) * 4                           # column 8 c + i sits in bits 4 i..

    k_steps = K // BLOCK_K
    step_begin = pid_k * steps_per_split
    step_end = tl.minimum(step_begin + steps_per_split, k_steps)

    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    for step in range(step_begin, step_end):
        k0 = step * BLOCK_K
        if UNPACK_RESHAPE:
            # Packed codes, [BLOCK_N, BLOCK_K / 8]: element (n, p) is qweight[k0 / 8 + p, n].
            qw_ptrs = qw_ptr + (k0 // 8 + offs_p)[None, :] * N + offs_n[:, None]
            packed = tl.load(qw_ptrs, mask=n_ok[:, None], other=0, eviction_policy="evict_first")
        else:
            # Fallback without the 3-D reshape: element (n, kk) loads word (k0 + kk) // 8 (each
            # word eight times, from L1) and shifts it by 4 (kk % 8).
            qw_ptrs = qw_ptr + ((k0 + offs_kk) // 8)[None, :] * N + offs_n[:, None]
            words = tl.load(qw_ptrs, mask=n_ok[:, None], other=0, eviction_policy="evict_first")
        # Group parameters of this step (BLOCK_K divides GROUP: one group per step).
        g = k0 // GROUP
        scale = tl.load(s_ptr + g * N + offs_n, mask=n_ok, other=0.0).to(tl.float32)
        zword = tl.load(qz_ptr + g * (N // 8) + offs_n // 8, mask=n_ok, other=0)
        zero_f = (((zword >> zero_shift) & 0xF) | _MAGIC_F32).to(tl.float32, bitcast=True)
        if UNPACK_RESHAPE:
            # Unpack: [BLOCK_N, BLOCK_K / 8, 8] -> [BLOCK_N, BLOCK_K], row index 8 p + i.
            codes = (packed[:, :, None] >> nibble_shift[None, None, :]) & 0xF
            vals = (codes | _MAGIC_F32).to(tl.float32, bitcast=True)     # 2^23 + code, exact
            w = (vals - zero_f[:, None, None]) * scale[:, None, None]     # (code - zero) * s
            w = tl.reshape(w.to(tl.bfloat16), (BLOCK_N, BLOCK_K))
        else:
            codes = (words >> ((offs_kk % 8) * 4)[None, :]) & 0xF
            vals = (codes | _MAGIC_F32).to(tl.float32, bitcast=True)
            w = ((vals - zero_f[:, None]) * scale[:, None]).to(tl.bfloat16)
        # Activations [BLOCK_M, BLOCK_K], used transposed as the right operand.
        x_ptrs = x_ptr + offs_m[:, None] * K + (k0 + offs_kk)[None, :]
        xa = tl.load(x_ptrs, mask=m_ok[:, None], other=0.0, eviction_policy="evict_last")
        acc = tl.dot(w, tl.trans(xa), acc)

    out_mask = n_ok[:, None] & m_ok[None, :]
    if WRITE_PARTIAL:
        p_ptrs = part_ptr + pid_k * M * N + offs_m[None, :] * N + offs_n[:, None]
        tl.store(p_ptrs, acc, mask=out_mask)
    else:
        y_ptrs = y_ptr + offs_m[None, :] * N + offs_n[:, None]
        tl.store(y_ptrs, acc.to(tl.bfloat16), mask=out_mask)


@triton.jit
def _sum_splits_kernel(part_ptr, y_ptr, total, splits, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < total
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, splits):
        acc += tl.load(part_ptr + s * total + offs, mask=ok, other=0.0)
    tl.store(y_ptr + offs, acc.to(tl.bfloat16), mask=ok)


_SUM_BLOCK = 1024
# The weight tile is unpacked from one load per word through a 3-D broadcast and a reshape. If a
# Triton build rejects or mis-lowers that reshape, False selects the fallback that loads every
# word once per code it holds (same results, more load instructions).
_UNPACK_RESHAPE = True


def _plan(M, N, K, group, sms):
    """Tile shape, warps, pipeline depth and split count, from shapes and the SM count only.

    Returns (BLOCK_N, BLOCK_M, BLOCK_K, num_warps, num_stages, splits, steps_per_split)."""
    if M <= 16:
        # Decode: bandwidth-bound. 128 columns x 128 rows of K per step is 8 KiB of packed codes;
        # four stages keep about 32 KiB per program in flight and several programs fit an SM.
        # Eight warps (two warpgroups of 64 weight rows) hold the 128 x 128 unpacked tile
        # without spilling.
        block_n, block_m, block_k, warps, stages = 128, 16, 128, 8, 4
    elif M <= 64:
        block_n, block_m, block_k, warps, stages = 128, 64, 128, 8, 4
    else:
        # Prefill: tensor-core-bound; one 128 x 128 fp32 tile over two warpgroups per SM.
        block_n, block_m, block_k, warps, stages = 128, 128, 64, 8, 4
    block_k = min(block_k, group)
    assert group % block_k == 0 and K % block_k == 0

    tiles = triton.cdiv(M, block_m) * triton.cdiv(N, block_n)
    k_steps = K // block_k
    # The partial buffer (splits x M x N fp32) stays within half of the task's scratch bound.
    cap = max(1, min(16, max(256, 4 * M) // M, k_steps))
    if M <= 64:
        # Enough programs for two per SM, each still streaming at least 8 K steps.
        splits = min(cap, max(1, triton.cdiv(2 * sms, tiles)), max(1, k_steps // 8))
    else:
        # Fill the last wave (one program per SM): the fewest waves per unit of work, with a
        # small charge per extra split for writing and summing the partials.
        best = None
        for s in range(1, min(cap, 4) + 1):
            cost = triton.cdiv(tiles * s, sms) / s + (0.04 * s if s > 1 else 0.0)
            if best is None or cost < best[0] - 1e-9:
                best = (cost, s)
        splits = best[1]
    steps_per_split = triton.cdiv(k_steps, splits)
    splits = triton.cdiv(k_steps, steps_per_split)  # every slice holds at least one step
    return block_n, block_m, block_k, warps, stages, splits, steps_per_split


def run(x, qweight, scales, qzeros):
    M, K = x.shape
    N = qweight.shape[1]
    groups = scales.shape[0]
    assert qweight.shape[0] * 8 == K and K % groups == 0
    group = K // groups
    assert tuple(scales.shape) == (groups, N) and tuple(qzeros.shape) == (groups, N // 8)
    assert N % 8 == 0 and group % 8 == 0
    assert x.is_contiguous() and qweight.is_contiguous() and scales.is_contiguous()
    assert qzeros.is_contiguous()

    block_n, block_m, block_k, warps, stages, splits, steps = _plan(
        M, N, K, group, torch.cuda.get_device_properties(x.device).multi_processor_count)
    y = torch.empty((M, N), dtype=torch.bfloat16, device=x.device)
    part = torch.empty((splits, M, N), dtype=torch.float32, device=x.device) if splits > 1 else y
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n), splits)
    _w4a16_kernel[grid](
        x, qweight, scales, qzeros, y, part,
        M, N, K, steps,
        GROUP=group, BLOCK_N=block_n, BLOCK_M=block_m, BLOCK_K=block_k,
        WRITE_PARTIAL=splits > 1, UNPACK_RESHAPE=_UNPACK_RESHAPE,
        num_warps=warps, num_stages=stages,
    )
    if splits > 1:
        total = M * N
        _sum_splits_kernel[(triton.cdiv(total, _SUM_BLOCK),)](
            part, y, total, splits, BLOCK=_SUM_BLOCK, num_warps=4)
    return y
