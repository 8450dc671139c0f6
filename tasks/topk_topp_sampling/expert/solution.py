"""Expert: sort-free top-k/top-p sampling by pivot rejection, in two shapes chosen by the rows.

Notation per row: s = log2(e) / temperature, x_j = logits[j] * s, m = max_j x_j, and the weight
w_j = 2^(x_j - m), so the largest weight is exactly 1. A token with weight v is kept when
count(w > v) < k and mass(w > v) < p * Z, with Z the sum of all weights; the kept set is
{w >= theta} for one threshold theta, and the largest token is always kept.

The rounds (both shapes):
    step 0   maximum, sum and one draw from the whole row in proportion to the weights: the
             first candidate.
    round    candidate weight p0 and a second pivot p1 (the geometric midpoint of p0 and the best
             known kept weight `high`): count tokens and sum mass strictly above both pivots and
             draw one token above each. Then
                 candidate kept -> it is the sample;
                 p1 kept        -> theta in (p0, p1]: high = p1, next = the draw above p0;
                 otherwise      -> theta above p1:                next = the draw above p1.
Every proposal is the exact distribution restricted to a superset of the kept set (everything
above a pivot known not to be kept), drawn with fresh randomness, and it is accepted exactly when
it is kept, so the accepted token follows the kept distribution. The candidate weight rises every
round and the bracket at least halves in log space, so the rounds are bounded.

Up to 128 rows (split rows): a row of V logits is cut into ceil(V / 8192) slices and CTA
(row, slice) loads its slice once and keeps it in registers, so the row is read once. The row's
CTAs meet at a barrier (an arrival counter per row) after each step and exchange per-slice
scalars through a small slot array; every CTA then reads all slots of its row and takes the same
decisions, so they never disagree and leave the loop together. Draws are two-level inverse CDFs
(a slice by mass, a tile by mass, a token in the tile). Rows without limits accept the first
candidate; greedy rows (top_k = 1) with a single maximum take it without a round. The slices of
a row wait for each other, so they must be resident together: the grid is row-major (a row's
slices are consecutive block indices, dispatched in order) and a row has at most 64 slices.

More rows (row streaming): one program per row, no scratch and no barrier. Pass 0 streams the
row for the online maximum and sum and a weighted reservoir draw over tiles; each round streams
it again, counting above both pivots and drawing above both with the same loads, in the opposite
direction from the previous pass so it starts on tiles still in L2. With 256 rows the GPU is full
and the split shape's barrier latency only costs time (expert/check.py --sweep measures both).

A candidate's weight is always the bits its owner compared with, so "strictly above the
candidate" never counts the candidate. PyTorch only allocates the output and the scratch (slots
and counters); the counters are cleared by a kernel of this file.
"""

import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)
_TILE = 256                 # tokens per tile: the unit of the two-level inverse CDF
_MAX_SLICES = 64            # barrier members per row; slot vectors are padded to a power of two
_SPLIT_MAX_ROWS = 128       # more rows stream (measured crossover on the H200, see guidance.json)
_FLOAT_FIELDS = 4           # per slice and step: two masses and two token weights (or max, sum, x)
_INT_FIELDS = 4             # per slice and step: two counts and two token ids
_MAX_ROUNDS = 96            # never reached: the bracket reaches adjacent floats long before


@triton.jit
def _pick(masses, u, N: tl.constexpr):
    # Inverse CDF over N non-negative masses with one uniform; the last positive entry when
    # rounding leaves u * total at or above the running sum.
    offs = tl.arange(0, N)
    cums = tl.cumsum(masses, 0)
    target = u * tl.max(cums, 0)
    hit = tl.min(tl.where((cums > target) & (masses > 0.0), offs, N), 0)
    last = tl.max(tl.where(masses > 0.0, offs, -1), 0)
    return tl.where(hit == N, last, hit)


@triton.jit
def _draw_in_slice(wm, u_tile, u_token, T: tl.constexpr, TILE: tl.constexpr):
    """(index in the slice, its weight, the slice's mass) of a draw from [T, TILE] weights wm."""
    tile_mass = tl.sum(wm, 1)
    tile = _pick(tile_mass, u_tile, T)
    rows = tl.arange(0, T)
    # The other tiles contribute exact zeros, so this is the chosen tile's weights bit for bit.
    tile_w = tl.sum(tl.where(rows[:, None] == tile, wm, 0.0), 0)
    pos = _pick(tile_w, u_token, TILE)
    lanes = tl.arange(0, TILE)
    weight = tl.sum(tl.where(lanes == pos, tile_w, 0.0), 0)
    return tile * TILE + pos, weight, tl.sum(tile_mass, 0)


@triton.jit
def _uniform(key, base, n: tl.constexpr):
    us = tl.rand(key, base + tl.arange(0, 4))
    return tl.sum(tl.where(tl.arange(0, 4) == n, us, 0.0), 0)


@triton.jit
def _arrive_and_wait(arrivals_ptr, target):
    # Every thread's slot stores come before the release; every slot load after the acquire.
    # Waiting threads poll with acquire loads and sleep between polls, so a row's waiting CTAs
    # do not flood the L2 slice that holds the counter.
    tl.debug_barrier()
    tl.atomic_add(arrivals_ptr, 1, sem="release", scope="gpu")
    tl.inline_asm_elementwise(
        asm="""{
        .reg .pred waiting;
        .reg .s32 seen;
        poll:
        ld.acquire.gpu.global.s32 seen, [$1];
        setp.lt.s32 waiting, seen, $2;
        @waiting nanosleep.u32 32;
        @waiting bra poll;
        mov.s32 $0, seen;
        }""",
        constraints="=r,l,r",
        args=[arrivals_ptr.to(tl.int64), target],
        dtype=tl.int32, is_pure=False, pack=1)
    tl.debug_barrier()


@triton.jit
def _select(values, slots, chosen):
    return tl.sum(tl.where(slots == chosen, values, 0), 0)


@triton.jit
def _clear_kernel(arrivals_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(arrivals_ptr + offs, tl.zeros([BLOCK], dtype=tl.int32), mask=offs < n)


@triton.jit
def _split_row_sample_kernel(
    logits_ptr, top_k_ptr, top_p_ptr, temperature_ptr, out_ptr,
    slots_f_ptr, slots_i_ptr, arrivals_ptr,
    V, stride_row, seed,
    T: tl.constexpr, TILE: tl.constexpr, S_PAD: tl.constexpr,
    NF: tl.constexpr, NI: tl.constexpr, MAX_ROUNDS: tl.constexpr,
):
    CHUNK: tl.constexpr = T * TILE
    n_slices = tl.cdiv(V, CHUNK)
    pid = tl.program_id(0)
    row = pid // n_slices
    me = pid - row * n_slices
    key = seed + row
    tiles = tl.arange(0, T)
    lanes = tl.arange(0, TILE)
    local = tiles[:, None] * TILE + lanes[None, :]
    idx = me * CHUNK + local
    valid = idx < V

    x = tl.load(logits_ptr + row.to(tl.int64) * stride_row + idx, mask=valid, other=0.0)
    scale = LOG2E / tl.load(temperature_ptr + row)
    # The select also keeps x * scale from fusing with the subtraction below, so the weights
    # here and the scalar weight of step 0's candidate are the same bits.
    xs = tl.where(valid, x * scale, float("-inf"))
    k = tl.load(top_k_ptr + row)
    p = tl.load(top_p_ptr + row)
    k_limit = tl.where((k <= 0) | (k >= V), V + 1, k)
    no_p = p >= 1.0

    slots = tl.arange(0, S_PAD)
    members = slots < n_slices
    step_f = NF * S_PAD
    step_i = NI * S_PAD
    row_f = slots_f_ptr + row.to(tl.int64) * (2 * step_f)
    row_i = slots_i_ptr + row.to(tl.int64) * (2 * step_i)
    arrivals = arrivals_ptr + row
    rand_stride = (S_PAD + 1) * 4  # per step: 4 uniforms per slice, then 4 shared by the row

    # Step 0: statistics of the slice and a draw from it, published in parity 0.
    m_me = tl.max(xs)
    e = tl.where(xs == float("-inf"), 0.0, tl.exp2(xs - m_me))  # a slice of -inf logits adds 0
    pick, _, mass_me = _draw_in_slice(e, _uniform(key, me * 4, 0), _uniform(key, me * 4, 1), T, TILE)
    x_pick = tl.sum(tl.where(local == pick, xs, 0.0))
    top_local = tl.min(tl.where(xs == m_me, local, CHUNK))
    n_top = tl.sum((xs == m_me).to(tl.int32))
    tl.store(row_f + 0 * S_PAD + me, m_me)
    tl.store(row_f + 1 * S_PAD + me, mass_me)
    tl.store(row_f + 2 * S_PAD + me, x_pick)
    tl.store(row_i + 0 * S_PAD + me, me * CHUNK + pick)
    tl.store(row_i + 1 * S_PAD + me, me * CHUNK + top_local)
    tl.store(row_i + 2 * S_PAD + me, n_top)
    _arrive_and_wait(arrivals, n_slices)

    maxes = tl.load(row_f + 0 * S_PAD + slots, mask=members, other=float("-inf"), cache_modifier=".cg")
    sums = tl.load(row_f + 1 * S_PAD + slots, mask=members, other=0.0, cache_modifier=".cg")
    x_picks = tl.load(row_f + 2 * S_PAD + slots, mask=members, other=0.0, cache_modifier=".cg")
    picks = tl.load(row_i + 0 * S_PAD + slots, mask=members, other=0, cache_modifier=".cg")
    tops = tl.load(row_i + 1 * S_PAD + slots, mask=members, other=0, cache_modifier=".cg")
    n_tops = tl.load(row_i + 2 * S_PAD + slots, mask=members, other=0, cache_modifier=".cg")
    m = tl.max(maxes, 0)
    slice_mass = tl.where(members, sums * tl.exp2(maxes - m), 0.0)
    limit_mass = p * tl.sum(slice_mass, 0)
    chosen = _pick(slice_mass, _uniform(key, S_PAD * 4, 0), S_PAD)
    cand = _select(picks, slots, chosen)
    p0 = tl.exp2(_select(x_picks, slots, chosen) - m)
    holds_max = members & (maxes == m)
    top_token = tl.min(tl.where(holds_max, tops, V), 0)
    single_top = tl.sum(tl.where(holds_max, n_tops, 0), 0) == 1

    w = tl.exp2(xs - m)
    greedy = (k_limit == 1) & single_top
    unlimited = (k_limit > V) & no_p
    cand = tl.where(greedy, top_token, cand)
    done = (greedy | unlimited).to(tl.int32)
    high = tl.full([], 1.0, tl.float32)
    rounds = tl.full([], 0, tl.int32)
    while (done == 0) & (rounds < MAX_ROUNDS):
        rounds += 1
        parity = rounds % 2
        p1 = tl.where(p0 > 0.0, tl.sqrt(p0 * high), 0.5 * high)
        p1 = tl.minimum(tl.maximum(p1, p0), high)
        above0 = w > p0
        above1 = w > p1
        base = rounds * rand_stride + me * 4
        pick0, w0, mass0 = _draw_in_slice(tl.where(above0, w, 0.0), _uniform(key, base, 0),
                                          _uniform(key, base, 1), T, TILE)
        pick1, w1, mass1 = _draw_in_slice(tl.where(above1, w, 0.0), _uniform(key, base, 2),
                                          _uniform(key, base, 3), T, TILE)
        out_f = row_f + parity * step_f
        out_i = row_i + parity * step_i
        tl.store(out_f + 0 * S_PAD + me, mass0)
        tl.store(out_f + 1 * S_PAD + me, w0)
        tl.store(out_f + 2 * S_PAD + me, mass1)
        tl.store(out_f + 3 * S_PAD + me, w1)
        tl.store(out_i + 0 * S_PAD + me, tl.sum(above0.to(tl.int32)))
        tl.store(out_i + 1 * S_PAD + me, me * CHUNK + pick0)
        tl.store(out_i + 2 * S_PAD + me, tl.sum(above1.to(tl.int32)))
        tl.store(out_i + 3 * S_PAD + me, me * CHUNK + pick1)
        _arrive_and_wait(arrivals, (rounds + 1) * n_slices)

        masses0 = tl.load(out_f + 0 * S_PAD + slots, mask=members, other=0.0, cache_modifier=".cg")
        weights0 = tl.load(out_f + 1 * S_PAD + slots, mask=members, other=0.0, cache_modifier=".cg")
        masses1 = tl.load(out_f + 2 * S_PAD + slots, mask=members, other=0.0, cache_modifier=".cg")
        weights1 = tl.load(out_f + 3 * S_PAD + slots, mask=members, other=0.0, cache_modifier=".cg")
        counts0 = tl.load(out_i + 0 * S_PAD + slots, mask=members, other=0, cache_modifier=".cg")
        picks0 = tl.load(out_i + 1 * S_PAD + slots, mask=members, other=0, cache_modifier=".cg")
        counts1 = tl.load(out_i + 2 * S_PAD + slots, mask=members, other=0, cache_modifier=".cg")
        picks1 = tl.load(out_i + 3 * S_PAD + slots, mask=members, other=0, cache_modifier=".cg")
        keep0 = (tl.sum(counts0, 0) < k_limit) & (no_p | (tl.sum(masses0, 0) < limit_mass))
        keep1 = (tl.sum(counts1, 0) < k_limit) & (no_p | (tl.sum(masses1, 0) < limit_mass))
        # theta in (p0, p1] draws above p0, otherwise above p1.
        level_masses = tl.where(keep1, masses0, masses1)
        chosen = _pick(level_masses, _uniform(key, rounds * rand_stride + S_PAD * 4, 0), S_PAD)
        next_cand = _select(tl.where(keep1, picks0, picks1), slots, chosen)
        next_w = _select(tl.where(keep1, weights0, weights1), slots, chosen)
        high = tl.where(keep0, high, tl.where(keep1, p1, high))
        cand = tl.where(keep0, cand, next_cand)
        p0 = tl.where(keep0, p0, next_w)
        done = keep0.to(tl.int32)

    # The round cap only guards against non-finite input; the maximum is always allowed.
    result = tl.where(done == 1, cand, top_token)
    tl.store(out_ptr + row, result.to(tl.int64), mask=me == 0)


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
def _row_stream_sample_kernel(
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


def _slice_shape(vocab):
    """(tiles per slice, warps) of the split-row kernel, or None for the row-streaming kernel."""
    tiles, warps = 32, 4
    if triton.cdiv(vocab, tiles * _TILE) > _MAX_SLICES:
        return None
    return tiles, warps


def _use_split_rows(batch, vocab):
    return batch <= _SPLIT_MAX_ROWS and _slice_shape(vocab) is not None


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
    device = logits.device
    samples = torch.empty((batch,), dtype=torch.int64, device=device)
    if batch == 0:
        return samples
    if not _use_split_rows(batch, vocab):
        # Enough rows to fill the GPU: one program streams each row (no barriers, no scratch).
        few_rows = batch < 132
        _row_stream_sample_kernel[(batch,)](
            logits, top_k, top_p, temperature, samples,
            vocab, logits.stride(0), _kernel_seed(seed),
            BLOCK=8192 if few_rows else 4096, MAX_ROUNDS=_MAX_ROUNDS,
            num_warps=16 if few_rows else 8,
        )
        return samples
    tiles, warps = _slice_shape(vocab)
    n_slices = triton.cdiv(vocab, tiles * _TILE)
    s_pad = max(2, triton.next_power_of_2(n_slices))
    slots_f = torch.empty((batch, 2, _FLOAT_FIELDS, s_pad), dtype=torch.float32, device=device)
    slots_i = torch.empty((batch, 2, _INT_FIELDS, s_pad), dtype=torch.int32, device=device)
    arrivals = torch.empty((batch,), dtype=torch.int32, device=device)
    _clear_kernel[(triton.cdiv(batch, 1024),)](arrivals, batch, BLOCK=1024, num_warps=4)
    _split_row_sample_kernel[(batch * n_slices,)](
        logits, top_k, top_p, temperature, samples,
        slots_f, slots_i, arrivals,
        vocab, logits.stride(0), _kernel_seed(seed),
        T=tiles, TILE=_TILE, S_PAD=s_pad, NF=_FLOAT_FIELDS, NI=_INT_FIELDS,
        MAX_ROUNDS=_MAX_ROUNDS, num_warps=warps,
    )
    return samples
