"""Baseline: find the keep threshold by bisection, then sample by inverse CDF. One program per row.

The first correct kernel a competent engineer writes without the pivot-rejection design. Per
row, with w_j = 2^(logits[j] * log2(e) / temperature - m) (the softmax numerators, largest 1):

    pass 1          m = max_j logits[j] * log2(e) / temperature
    pass 2          Z = sum_j w_j
    passes 3..33    bisection over the bit patterns of non-negative floats for the smallest
                    value v with count(w > v) < top_k and mass(w > v) < top_p * Z; the keep
                    rule is monotone in v, so 31 halvings of [0, 2.0] find it exactly and the
                    kept set is {w >= v}
    pass 34         S = mass of the kept set
    pass 35         inverse CDF: the first kept token whose running mass exceeds u * S, with
                    one uniform u = tl.rand(seed, row)

Every pass streams the whole row from memory; nothing is sorted, but the bisection costs about
thirty passes where the expert needs two to four.

PyTorch is used only to allocate the output.
"""

import torch
import triton
import triton.language as tl

_BLOCK = 2048
_BISECTION_STEPS = 31      # 0x40000000 (the bits of 2.0) < 2^31
_UPPER_BITS = 0x40000000   # 2.0: above every weight, so always a keep value


@triton.jit
def _row_weights(x, scale, m):
    return tl.exp2(x * scale - m)


@triton.jit
def _bisection_sample_kernel(
    logits_ptr, top_k_ptr, top_p_ptr, temperature_ptr, out_ptr,
    V, stride_row, seed,
    BLOCK: tl.constexpr, STEPS: tl.constexpr, UPPER_BITS: tl.constexpr,
):
    row = tl.program_id(0)
    row_ptr = logits_ptr + row.to(tl.int64) * stride_row
    k = tl.load(top_k_ptr + row)
    p = tl.load(top_p_ptr + row)
    scale = 1.4426950408889634 / tl.load(temperature_ptr + row)
    k_limit = tl.where((k <= 0) | (k >= V), V + 1, k)
    no_p = p >= 1.0
    offs = tl.arange(0, BLOCK)

    m = tl.full([], float("-inf"), tl.float32)
    for start in range(0, V, BLOCK):
        idx = start + offs
        x = tl.load(row_ptr + idx, mask=idx < V, other=float("-inf"))
        m = tl.maximum(m, tl.max(x * scale))

    z_acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, V, BLOCK):
        idx = start + offs
        x = tl.load(row_ptr + idx, mask=idx < V, other=float("-inf"))
        z_acc += _row_weights(x, scale, m)
    limit_mass = p * tl.sum(z_acc)

    # Invariant: keep(hi) holds, keep(lo) does not (lo = -1 stands for "below 0.0").
    lo = tl.full([], -1, tl.int32)
    hi = tl.full([], UPPER_BITS, tl.int32)
    for _ in range(STEPS):
        mid = lo + (hi - lo) // 2
        mid_value = tl.maximum(mid, 0).to(tl.float32, bitcast=True)
        count = tl.zeros([BLOCK], dtype=tl.int32)
        mass = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, V, BLOCK):
            idx = start + offs
            x = tl.load(row_ptr + idx, mask=idx < V, other=float("-inf"))
            w = _row_weights(x, scale, m)
            above = w > mid_value
            count += above.to(tl.int32)
            mass += tl.where(above, w, 0.0)
        keep = (tl.sum(count) < k_limit) & (no_p | (tl.sum(mass) < limit_mass))
        active = (hi - lo) > 1
        hi = tl.where(active & keep, mid, hi)
        lo = tl.where(active & (~keep), mid, lo)
    threshold = tl.maximum(hi, 0).to(tl.float32, bitcast=True)

    kept_acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, V, BLOCK):
        idx = start + offs
        x = tl.load(row_ptr + idx, mask=idx < V, other=float("-inf"))
        w = _row_weights(x, scale, m)
        kept_acc += tl.where(w >= threshold, w, 0.0)
    target = tl.rand(seed, row) * tl.sum(kept_acc)

    running = tl.full([], 0.0, tl.float32)
    found = tl.full([], 0, tl.int32)
    choice = tl.full([], -1, tl.int32)
    last_kept = tl.full([], -1, tl.int32)
    for start in range(0, V, BLOCK):
        idx = start + offs
        x = tl.load(row_ptr + idx, mask=idx < V, other=float("-inf"))
        w = _row_weights(x, scale, m)
        kept = (idx < V) & (w >= threshold) & (w > 0.0)
        wk = tl.where(kept, w, 0.0)
        cums = running + tl.cumsum(wk, 0)
        hit = tl.min(tl.where(kept & (cums > target), idx, V))
        take = (found == 0) & (hit < V)
        choice = tl.where(take, hit, choice)
        found = tl.where(take, 1, found)
        last_kept = tl.maximum(last_kept, tl.max(tl.where(kept, idx, -1)))
        running += tl.sum(wk)
    # Rounding can leave u * S at or above the running total: take the last kept token.
    choice = tl.where(found == 1, choice, last_kept)
    tl.store(out_ptr + row, choice.to(tl.int64))


def run(logits, top_k, top_p, temperature, seed):
    if logits.dim() != 2 or logits.dtype != torch.float32 or logits.stride(1) != 1:
        raise ValueError("logits must be float32 [batch, vocab] with contiguous rows")
    if top_k.dtype != torch.int32 or top_p.dtype != torch.float32 or temperature.dtype != torch.float32:
        raise ValueError("top_k must be int32, top_p and temperature float32")
    batch, vocab = logits.shape
    samples = torch.empty((batch,), dtype=torch.int64, device=logits.device)
    if batch == 0:
        return samples
    # A 62-bit key from the call's seed (Python integer glue), odd so Triton never specializes it.
    key = ((int(seed) * 0x9E3779B97F4A7C15) % (1 << 62)) | (1 << 61) | 1
    _bisection_sample_kernel[(batch,)](
        logits, top_k, top_p, temperature, samples,
        vocab, logits.stride(0), key,
        BLOCK=_BLOCK, STEPS=_BISECTION_STEPS, UPPER_BITS=_UPPER_BITS, num_warps=8,
    )
    return samples
