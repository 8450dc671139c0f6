"""Multi-adapter LoRA as two segmented grouped GEMMs (SGMV), three launches per call.

1. `_group_tokens_kernel` (one program): a counting sort of the tokens by adapter, entirely on
   the device. Tokens without adapter form one more group, the last. It writes, per group, the
   token count and the first position, and the token ids in group order.
2. `_shrink_kernel`: one program per (adapter, block of that adapter's tokens, K split). The
   program follows its adapter's pointer into lora_a, gathers its tokens' rows of x and computes
   a [BLOCK_M, S*r] partial product over its slice of H. Split-K gives the thin product
   (S*r is 8..128 columns) enough programs to stream the weights at full bandwidth; each split
   writes its own fp32 partial (no atomics), indexed by the token's sorted position.
3. `_expand_kernel`: one program per (group, token block, slice, column stripe). It sums the
   split-K partials of its slice once (the second stage of the split-K reduction), applies the
   scale, rounds to bf16 and keeps that [BLOCK_M, r] tile in registers while it streams its
   stripe of columns: lora_b tile, base tile, one MMA, out = base + delta. The group of tokens
   without adapter copies base.

Grids and scratch sizes depend only on shapes; the programs of empty token blocks return at once,
so the call never reads a count on the host and can be captured in a CUDA graph.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _group_tokens_kernel(ids_ptr, sorted_ptr, counts_ptr, starts_ptr, block_group_ptr,
                         block_row0_ptr, T, MAX_BLOCKS,
                         NUM_GROUPS: tl.constexpr, G_BLOCK: tl.constexpr, CHUNK: tl.constexpr,
                         BLOCK_M: tl.constexpr, B_CHUNK: tl.constexpr):
    """Counting sort of the T tokens into NUM_GROUPS = L + 1 groups (group L: no adapter), stable
    within a group, and the list of token blocks: block b covers positions
    starts[g] + row0 .. + BLOCK_M - 1 of group g = block_group[b] (NUM_GROUPS or more: unused)."""
    groups = tl.arange(0, G_BLOCK)
    counts = tl.zeros([G_BLOCK], dtype=tl.int32)
    for c0 in range(0, T, CHUNK):
        t = c0 + tl.arange(0, CHUNK)
        valid = t < T
        a = tl.load(ids_ptr + t, mask=valid, other=0)
        g = tl.where(a < 0, NUM_GROUPS - 1, a)
        onehot = ((g[:, None] == groups[None, :]) & valid[:, None]).to(tl.int32)  # [CHUNK, G]
        counts += tl.sum(onehot, axis=0)
    starts = tl.cumsum(counts, axis=0) - counts
    in_range = groups < NUM_GROUPS
    tl.store(counts_ptr + groups, counts, mask=in_range)
    tl.store(starts_ptr + groups, starts, mask=in_range)

    filled = starts  # next free position of every group
    for c0 in range(0, T, CHUNK):
        t = c0 + tl.arange(0, CHUNK)
        valid = t < T
        a = tl.load(ids_ptr + t, mask=valid, other=0)
        g = tl.where(a < 0, NUM_GROUPS - 1, a)
        onehot = ((g[:, None] == groups[None, :]) & valid[:, None]).to(tl.int32)
        earlier = tl.cumsum(onehot, axis=0) - onehot  # same-group tokens before t in this chunk
        pos = tl.sum(onehot * (earlier + filled[None, :]), axis=1)
        tl.store(sorted_ptr + pos, t, mask=valid)
        filled += tl.sum(onehot, axis=0)

    # Token blocks: group g owns blocks block_start[g] .. block_end[g] - 1. Padding groups
    # (>= NUM_GROUPS) have no tokens, so block b of a used group g has exactly g groups ending
    # at or before b; past the last block the count reaches NUM_GROUPS or more.
    n_blocks = (counts + BLOCK_M - 1) // BLOCK_M
    block_end = tl.cumsum(n_blocks, axis=0)
    block_start = block_end - n_blocks
    for b0 in range(0, MAX_BLOCKS, B_CHUNK):
        b = b0 + tl.arange(0, B_CHUNK)
        b_ok = b < MAX_BLOCKS
        owner = tl.sum((block_end[None, :] <= b[:, None]).to(tl.int32), axis=1)
        first = tl.sum(tl.where(groups[None, :] == owner[:, None], block_start[None, :], 0), axis=1)
        tl.store(block_group_ptr + b, owner, mask=b_ok)
        tl.store(block_row0_ptr + b, (b - first) * BLOCK_M, mask=b_ok)


@triton.jit
def _shrink_kernel(x_ptr, a_ptr, sorted_ptr, counts_ptr, starts_ptr, block_group_ptr,
                   block_row0_ptr, part_ptr,
                   T, H, SR, NUM_LORAS,
                   stride_x, stride_al, stride_ar,
                   K_PER_SPLIT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_R: tl.constexpr,
                   BLOCK_K: tl.constexpr):
    """part[split, p, :] = x[sorted[p]] . lora_a[adapter, :, K range of split], fp32, for the
    positions p of token block `program_id(0)` (blocks of the no-adapter group and unused
    blocks return at once)."""
    blk = tl.program_id(0)
    split = tl.program_id(1)
    adapter = tl.load(block_group_ptr + blk)
    if adapter >= NUM_LORAS:
        return
    row0 = tl.load(block_row0_ptr + blk)
    count = tl.load(counts_ptr + adapter)
    start = tl.load(starts_ptr + adapter)
    rows = row0 + tl.arange(0, BLOCK_M)
    row_ok = rows < count
    tok = tl.load(sorted_ptr + start + rows, mask=row_ok, other=0).to(tl.int64)
    rr = tl.arange(0, BLOCK_R)
    r_ok = rr < SR
    x_rows = x_ptr + tok[:, None] * stride_x
    a_cols = a_ptr + adapter.to(tl.int64) * stride_al + rr[None, :] * stride_ar  # [1, BLOCK_R]

    acc = tl.zeros([BLOCK_M, BLOCK_R], dtype=tl.float32)
    k_begin = split * K_PER_SPLIT
    for k0 in tl.range(k_begin, k_begin + K_PER_SPLIT, BLOCK_K, num_stages=3):
        kk = k0 + tl.arange(0, BLOCK_K)
        k_ok = kk < H
        xt = tl.load(x_rows + kk[None, :], mask=row_ok[:, None] & k_ok[None, :], other=0.0)
        at = tl.load(a_cols + kk[:, None], mask=k_ok[:, None] & r_ok[None, :], other=0.0)
        acc = tl.dot(xt, at, acc)  # [BLOCK_M, BLOCK_K] x [BLOCK_K, BLOCK_R]

    dst = part_ptr + split.to(tl.int64) * T * SR + (start + rows)[:, None] * SR + rr[None, :]
    tl.store(dst, acc, mask=row_ok[:, None] & r_ok[None, :])


@triton.jit
def _expand_kernel(base_ptr, b_ptr, part_ptr, out_ptr, sorted_ptr, counts_ptr, starts_ptr,
                   block_group_ptr, block_row0_ptr, offs_ptr, scale,
                   T, N, SR, r, NUM_LORAS,
                   stride_bl, stride_bn,
                   S: tl.constexpr, SPLIT_K: tl.constexpr, STRIPE: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_R: tl.constexpr):
    """out[t, c] = base[t, c] + bf16(scale * sum_split part) . lora_b[adapter, c, :] for the
    tokens of block `program_id(0)` and the columns of stripe `program_id(1)`; a stripe that
    crosses a slice boundary handles each slice's part with that slice's u."""
    blk = tl.program_id(0)
    group = tl.load(block_group_ptr + blk)
    if group > NUM_LORAS:
        return
    c_begin = tl.program_id(1) * STRIPE
    c_end = tl.minimum(c_begin + STRIPE, N)
    row0 = tl.load(block_row0_ptr + blk)
    count = tl.load(counts_ptr + group)
    start = tl.load(starts_ptr + group)
    rows = row0 + tl.arange(0, BLOCK_M)
    row_ok = rows < count
    tok = tl.load(sorted_ptr + start + rows, mask=row_ok, other=0).to(tl.int64)
    row_base = tok[:, None] * N
    cn = tl.arange(0, BLOCK_N)

    if group < NUM_LORAS:
        jr = tl.arange(0, BLOCK_R)
        j_ok = jr < r
        u_mask = row_ok[:, None] & j_ok[None, :]
        b_rows = b_ptr + group.to(tl.int64) * stride_bl + jr[:, None]  # [BLOCK_R, 1]
        for s in tl.static_range(S):
            lo = tl.maximum(c_begin, tl.load(offs_ptr + s))
            hi = tl.minimum(c_end, tl.load(offs_ptr + s + 1))
            if lo < hi:
                # Second stage of the split-K reduction: this slice's r columns of every
                # split's partial, once for all the column tiles of the stripe.
                src = part_ptr + (start + rows)[:, None] * SR + s * r + jr[None, :]
                u = tl.zeros([BLOCK_M, BLOCK_R], dtype=tl.float32)
                for k in tl.static_range(SPLIT_K):
                    u += tl.load(src + k * T * SR, mask=u_mask, other=0.0)
                u = (u * scale).to(tl.bfloat16)  # the rank-r activations in the weights' dtype
                for n0 in tl.range(lo, hi, BLOCK_N, num_stages=3):
                    cols = n0 + cn
                    c_ok = cols < hi
                    bt = tl.load(b_rows + cols[None, :] * stride_bn,
                                 mask=j_ok[:, None] & c_ok[None, :], other=0.0)  # [BLOCK_R, BLOCK_N]
                    m = row_ok[:, None] & c_ok[None, :]
                    b0 = tl.load(base_ptr + row_base + cols[None, :], mask=m, other=0.0)
                    delta = tl.dot(u, bt)
                    tl.store(out_ptr + row_base + cols[None, :],
                             (b0.to(tl.float32) + delta).to(tl.bfloat16), mask=m)
    else:
        # Tokens without adapter: out = base.
        for n0 in tl.range(c_begin, c_end, BLOCK_N, num_stages=3):
            cols = n0 + cn
            m = row_ok[:, None] & (cols < c_end)[None, :]
            b0 = tl.load(base_ptr + row_base + cols[None, :], mask=m, other=0.0)
            tl.store(out_ptr + row_base + cols[None, :], b0, mask=m)


def _pow2_at_least(n, floor):
    return max(floor, triton.next_power_of_2(max(1, n)))


def _plan(T, H, N, L, SR, num_sms):
    """Tile sizes, split-K and stripe width from the shapes and the SM count only."""
    per_adapter = T / max(1, min(L, T))
    block_m = 16 if per_adapter <= 16 else (32 if per_adapter <= 32 else 64)
    block_k = 128 if block_m <= 32 else 64
    # Every used group has at most one partial block: this bounds the token blocks of a call.
    max_blocks = triton.cdiv(T, block_m) + min(L + 1, T)
    split_k = 1
    while split_k * max_blocks < 4 * num_sms and split_k * 2 * block_k <= H and split_k < 16:
        split_k *= 2
    k_per_split = triton.cdiv(triton.cdiv(H, split_k), block_k) * block_k
    # The expand streams base and out: aim for about eight programs per SM.
    stripe = triton.next_power_of_2(N)
    while stripe > 128 and max_blocks * triton.cdiv(N, stripe) < 8 * num_sms:
        stripe //= 2
    return block_m, block_k, max_blocks, split_k, k_per_split, max(stripe, 128)


def run(x, base, lora_a, lora_b, slice_offsets, lora_ids, scale):
    for name, t in (("x", x), ("base", base), ("lora_a", lora_a), ("lora_b", lora_b),
                    ("slice_offsets", slice_offsets), ("lora_ids", lora_ids)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    T, H = x.shape
    L, SR, _ = lora_a.shape
    N, r = lora_b.shape[1], lora_b.shape[2]
    S = slice_offsets.shape[0] - 1
    assert base.shape == (T, N) and lora_a.shape[2] == H and lora_b.shape[0] == L
    assert SR == S * r and lora_ids.shape == (T,)
    device = x.device
    num_sms = torch.cuda.get_device_properties(device).multi_processor_count
    block_m, block_k, max_blocks, split_k, k_per_split, stripe = _plan(T, H, N, L, SR, num_sms)

    out = torch.empty((T, N), dtype=base.dtype, device=device)
    groups = L + 1
    sorted_tokens = torch.empty((T,), dtype=torch.int32, device=device)
    counts = torch.empty((groups,), dtype=torch.int32, device=device)
    starts = torch.empty((groups,), dtype=torch.int32, device=device)
    block_group = torch.empty((max_blocks,), dtype=torch.int32, device=device)
    block_row0 = torch.empty((max_blocks,), dtype=torch.int32, device=device)
    g_block = _pow2_at_least(groups, 16)
    chunk = max(16, min(1024, 16384 // g_block))  # a [chunk, g_block] one-hot: 16K values
    _group_tokens_kernel[(1,)](lora_ids, sorted_tokens, counts, starts, block_group, block_row0,
                               T, max_blocks,
                               NUM_GROUPS=groups, G_BLOCK=g_block, CHUNK=chunk, BLOCK_M=block_m,
                               B_CHUNK=chunk, num_warps=8)

    partials = torch.empty((split_k, T, SR), dtype=torch.float32, device=device)
    _shrink_kernel[(max_blocks, split_k)](
        x, lora_a, sorted_tokens, counts, starts, block_group, block_row0, partials,
        T, H, SR, L,
        x.stride(0), lora_a.stride(0), lora_a.stride(1),
        K_PER_SPLIT=k_per_split, BLOCK_M=block_m, BLOCK_R=_pow2_at_least(SR, 16),
        BLOCK_K=block_k, num_warps=4)

    _expand_kernel[(max_blocks, triton.cdiv(N, stripe))](
        base, lora_b, partials, out, sorted_tokens, counts, starts, block_group, block_row0,
        slice_offsets, float(scale),
        T, N, SR, r, L,
        lora_b.stride(0), lora_b.stride(1),
        S=S, SPLIT_K=split_k, STRIPE=stripe, BLOCK_M=block_m, BLOCK_N=128,
        BLOCK_R=_pow2_at_least(r, 16), num_warps=4 if block_m <= 32 else 8)
    return out
