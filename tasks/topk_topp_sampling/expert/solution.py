"""Expert: sort-free top-k/top-p sampling by pivot rejection, one program per row.

Notation per row: s = log2(e) / temperature, x_j = logits[j] * s, m = max_j x_j, and the weight
w_j = 2^(x_j - m), so the largest weight is exactly 1. A token with weight v is kept when
count(w > v) < k and mass(w > v) < p * Z, with Z the sum of all weights; the kept set is
{w >= theta} for one threshold theta, and the largest token is always kept.

Pass 0 streams the row once: online max and sum (the fused softmax statistics) and, with the
same loads, a weighted reservoir draw of one token from the whole row (one uniform per tile
decides whether the tile replaces the current winner; a second uniform picks the token inside
the winning tile by inverse CDF after the pass). That token is the first candidate.

Each round streams the row once more and, for the candidate weight p0 and a second pivot p1
(the geometric midpoint between p0 and the best known kept weight `high`), counts the tokens
and sums the mass strictly above both pivots; in the same pass it draws, again by reservoir,
one token from {w > p0} and one from {w > p1}. Then:
    candidate kept (count/mass above p0 within the limits) -> it is the sample;
    else if p1 would be kept   -> theta lies in (p0, p1]: low = p0, high = p1, next = draw > p0;
    else                       -> theta lies above p1:   low = p1,            next = draw > p1.
Every proposal is the true distribution restricted to a superset {w > low} of the kept set,
drawn with fresh randomness, and a proposal is accepted exactly when it is a kept token, so
the accepted token follows the kept distribution exactly. `low` grows strictly every round and
the bracket (low, high] shrinks at least by half in log space, so rounds are bounded; in
practice one to four. Rows with many rounds alternate their sweep direction so a pass starts
on the tiles the previous pass left in L2.

PyTorch is used only to allocate the output.
"""

import torch
import triton
import triton.language as tl

_MAX_ROUNDS = 96  # never reached: the bracket reaches adjacent floats long before


@triton.jit
def _weights(x, scale, m):
    # One definition for every pass, so the candidate's weight compares bit-exactly.
    return tl.exp2(x * scale - m)


@triton.jit
def _pick_in_tile(row_ptr, tile, low, u, scale, m, V, BLOCK: tl.constexpr):
    # Inverse CDF inside one tile over the tokens with weight > low: returns (index, weight).
    offs = tl.arange(0, BLOCK)
    idx = tile * BLOCK + offs
    in_row = (idx >= 0) & (idx < V)
    x = tl.load(row_ptr + idx, mask=in_row, other=float("-inf"))
    w = _weights(x, scale, m)
    w = tl.where(in_row & (w > low), w, 0.0)
    cums = tl.cumsum(w, 0)
    target = u * tl.sum(w)
    hit = tl.min(tl.where((cums > target) & (w > 0.0), offs, BLOCK))
    last = tl.max(tl.where(w > 0.0, offs, -1))
    pos = tl.where(hit == BLOCK, last, hit)
    weight = tl.sum(tl.where(offs == pos, w, 0.0))
    return tile * BLOCK + pos, weight


@triton.jit
def _topk_topp_sample_kernel(
    logits_ptr, top_k_ptr, top_p_ptr, temperature_ptr, out_ptr,
    V, stride_row, seed,
    BLOCK: tl.constexpr, MAX_ROUNDS: tl.constexpr,
):
    row = tl.program_id(0)
    row_ptr = logits_ptr + row.to(tl.int64) * stride_row
    k = tl.load(top_k_ptr + row)
    p = tl.load(top_p_ptr + row)
    scale = 1.4426950408889634 / tl.load(temperature_ptr + row)
    k_limit = tl.where((k <= 0) | (k >= V), V + 1, k)
    no_p = p >= 1.0
    key = seed + row  # a philox key per row; offsets below are unique per (round, tile, use)
    offs = tl.arange(0, BLOCK)
    n_tiles = tl.cdiv(V, BLOCK)

    # Pass 0: online max and sum, reservoir draw over the whole row, position of the maximum.
    m = tl.full([], float("-inf"), tl.float32)
    total = tl.full([], 0.0, tl.float32)
    winner = tl.full([], 0, tl.int32)
    best = tl.full([], 0, tl.int32)
    for t in range(0, n_tiles):
        idx = t * BLOCK + offs
        x = tl.load(row_ptr + idx, mask=idx < V, other=float("-inf"))
        tile_max = tl.max(x * scale)
        tile_arg = tl.argmax(x, 0)
        best = tl.where(tile_max > m, t * BLOCK + tile_arg, best)
        m_new = tl.maximum(m, tile_max)
        tile_mass = tl.sum(_weights(x, scale, m_new))
        total = total * tl.exp2(m - m_new) + tile_mass
        m = m_new
        u = tl.rand(key, 2 * t)
        winner = tl.where((tile_mass > 0.0) & (u * total <= tile_mass), t, winner)
    limit_mass = p * total

    low = tl.full([], 0.0, tl.float32)
    high = tl.full([], 1.0, tl.float32)
    first_pick = tl.full([], 1, tl.int32)  # tl.rand takes offsets as a tensor, not a literal
    cand, cand_w = _pick_in_tile(row_ptr, winner, low, tl.rand(key, first_pick), scale, m, V, BLOCK)

    done = tl.full([], 0, tl.int32)
    rounds = tl.full([], 0, tl.int32)
    while (done == 0) & (rounds < MAX_ROUNDS):
        rounds += 1
        p0 = cand_w
        p1 = tl.where(p0 > 0.0, tl.sqrt(p0 * high), 0.5 * high)
        p1 = tl.maximum(p1, p0)
        backwards = (rounds % 2) == 1
        mass0 = tl.full([], 0.0, tl.float32)
        mass1 = tl.full([], 0.0, tl.float32)
        count0 = tl.zeros([BLOCK], dtype=tl.int32)
        count1 = tl.zeros([BLOCK], dtype=tl.int32)
        win0 = tl.full([], 0, tl.int32)
        win1 = tl.full([], 0, tl.int32)
        for i in range(0, n_tiles):
            t = tl.where(backwards, n_tiles - 1 - i, i)
            idx = t * BLOCK + offs
            x = tl.load(row_ptr + idx, mask=idx < V, other=float("-inf"))
            w = _weights(x, scale, m)
            above0 = w > p0
            above1 = w > p1
            count0 += above0.to(tl.int32)
            count1 += above1.to(tl.int32)
            s0 = tl.sum(tl.where(above0, w, 0.0))
            s1 = tl.sum(tl.where(above1, w, 0.0))
            mass0 += s0
            mass1 += s1
            u = tl.rand(key, 2 * (rounds * n_tiles + t))
            win0 = tl.where((s0 > 0.0) & (u * mass0 <= s0), t, win0)
            win1 = tl.where((s1 > 0.0) & (u * mass1 <= s1), t, win1)
        keep0 = (tl.sum(count0) < k_limit) & (no_p | (mass0 < limit_mass))
        keep1 = (tl.sum(count1) < k_limit) & (no_p | (mass1 < limit_mass))
        next_low = tl.where(keep1, p0, p1)
        next_high = tl.where(keep1, p1, high)
        next_tile = tl.where(keep1, win0, win1)
        u_pick = tl.rand(key, 2 * (rounds * n_tiles) + 1)
        nxt, nxt_w = _pick_in_tile(row_ptr, next_tile, next_low, u_pick, scale, m, V, BLOCK)
        done = keep0.to(tl.int32)
        low = tl.where(keep0, low, next_low)
        high = tl.where(keep0, high, next_high)
        cand = tl.where(keep0, cand, nxt)
        cand_w = tl.where(keep0, cand_w, nxt_w)

    # The round cap is a guard against non-finite input only; the maximum is always allowed.
    result = tl.where(done == 1, cand, best)
    tl.store(out_ptr + row, result.to(tl.int64))


def _kernel_seed(seed):
    # Python integer glue: a 63-bit odd key (odd keeps Triton from specializing on it).
    return ((int(seed) * 0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D) % (1 << 62)) | (1 << 61) | 1


def run(logits, top_k, top_p, temperature, seed):
    if logits.dim() != 2:
        raise ValueError("logits must be [batch, vocab]")
    if logits.dtype != torch.float32:
        raise ValueError("logits must be float32")
    if logits.stride(1) != 1:
        raise ValueError("logits rows must be contiguous")
    if top_k.dtype != torch.int32 or top_p.dtype != torch.float32 or temperature.dtype != torch.float32:
        raise ValueError("top_k must be int32, top_p and temperature float32")
    if not (top_k.is_contiguous() and top_p.is_contiguous() and temperature.is_contiguous()):
        raise ValueError("per-row parameters must be contiguous")
    batch, vocab = logits.shape
    samples = torch.empty((batch,), dtype=torch.int64, device=logits.device)
    if batch == 0:
        return samples
    # Fewer rows than SMs: one program streams a whole row alone, so give it more loads in
    # flight per tile.
    few_rows = batch < 132
    block = 8192 if few_rows else 4096
    warps = 16 if few_rows else 8
    _topk_topp_sample_kernel[(batch,)](
        logits, top_k, top_p, temperature, samples,
        vocab, logits.stride(0), _kernel_seed(seed),
        BLOCK=block, MAX_ROUNDS=_MAX_ROUNDS, num_warps=warps,
    )
    return samples
