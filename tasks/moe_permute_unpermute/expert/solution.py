"""Expert: a stable counting sort of the slots by expert on the device, and one pass over the
tokens that moves every activation row to its permuted rows and pulls the combine.

Four launches, no host synchronization, every grid and buffer sized from shapes:

1. _histogram_kernel, one program per block of 256 slots: the block's per-expert counts with
   tl.histogram (written expert-major, [E, blocks]); it also sets its share of sorted_slot_ids
   to -1, so that padding rows and rows past the last expert read -1.
2. _scan_kernel, one program: for every expert the exclusive scan of its block counts (where the
   block's slots of that expert start within the expert), the expert's total, and the padded
   exclusive scan over experts (expert_offsets).
3. _rank_kernel, one program per block: each slot's rank among the block's earlier slots of the
   same expert (a comparison of the block's keys, in chunks), so its row is
   expert_offsets[e] + block prefix[e] + rank: stable, and atomic-free. Writes inverse and the
   slot id at that row.
4. _move_combine_kernel, one program per token: reads the token's k rows from inverse, loads its
   activation row once (column chunks) and stores it to each local row; then gathers the k
   expert-output rows and sums them with their weights in fp32, in slot order, writing y once.
"""

import torch
import triton
import triton.language as tl

# Slots per block of the histogram and rank kernels, and the chunk of the rank comparison.
_SLOTS_PER_BLOCK = 256
_RANK_CHUNK = 64
# -1 stores per step when filling sorted_slot_ids.
_FILL_BLOCK = 1024
# Scan tile: experts x blocks per step, at most this many elements.
_SCAN_TILE = 8192
# Bytes of an activation row per step of the copy, columns of y per step of the combine.
_COPY_BYTES = 4096
_COMBINE_COLS = 2048


@triton.jit
def _histogram_kernel(ids_ptr, hist_ptr, slot_ids_ptr, S, E, NBLK, R, FILL_PER_PROG,
                      E_PAD: tl.constexpr, BLOCK: tl.constexpr, FILL_BLOCK: tl.constexpr):
    blk = tl.program_id(0)
    offs = blk * BLOCK + tl.arange(0, BLOCK)
    ids = tl.load(ids_ptr + offs, mask=offs < S, other=-1)
    valid = (ids >= 0) & (ids < E)
    # Dropped and out-of-range slots are counted in bin 0 and taken out again.
    hist = tl.histogram(tl.where(valid, ids, 0), E_PAD)
    n_invalid = BLOCK - tl.sum(valid.to(tl.int32), axis=0)
    bins = tl.arange(0, E_PAD)
    hist = hist - tl.where(bins == 0, n_invalid, 0)
    tl.store(hist_ptr + bins * NBLK + blk, hist, mask=bins < E)

    # This program's share of sorted_slot_ids starts as -1; _rank_kernel, launched after this
    # kernel on the same stream, overwrites the rows that receive a slot.
    start = blk * FILL_PER_PROG
    for f in range(0, FILL_PER_PROG, FILL_BLOCK):
        rows = start + f + tl.arange(0, FILL_BLOCK)
        tl.store(slot_ids_ptr + rows, tl.full([FILL_BLOCK], -1, tl.int32), mask=rows < R)


@triton.jit
def _scan_kernel(hist_ptr, prefix_ptr, counts_ptr, offsets_ptr, E, NBLK, ALIGN,
                 E_PAD: tl.constexpr, CHUNK: tl.constexpr):
    experts = tl.arange(0, E_PAD)
    e_ok = experts < E
    carry = tl.zeros([E_PAD], dtype=tl.int32)
    for b0 in range(0, NBLK, CHUNK):
        blocks = b0 + tl.arange(0, CHUNK)
        m = e_ok[:, None] & (blocks[None, :] < NBLK)
        idx = experts[:, None] * NBLK + blocks[None, :]
        h = tl.load(hist_ptr + idx, mask=m, other=0)
        inclusive = tl.cumsum(h, axis=1)
        tl.store(prefix_ptr + idx, inclusive - h + carry[:, None], mask=m)
        carry = carry + tl.sum(h, axis=1)
    counts = carry
    padded = (counts + ALIGN - 1) // ALIGN * ALIGN
    ends = tl.cumsum(padded, axis=0)
    tl.store(counts_ptr + experts, counts, mask=e_ok)
    tl.store(offsets_ptr + experts, ends - padded, mask=e_ok)
    tl.store(offsets_ptr + E, tl.sum(padded, axis=0))


@triton.jit
def _rank_kernel(ids_ptr, prefix_ptr, offsets_ptr, inverse_ptr, slot_ids_ptr, S, E, NBLK,
                 BLOCK: tl.constexpr, CHUNK: tl.constexpr):
    blk = tl.program_id(0)
    first = blk * BLOCK
    mine = tl.arange(0, BLOCK)
    offs = first + mine
    in_range = offs < S
    ids = tl.load(ids_ptr + offs, mask=in_range, other=-1)
    valid = (ids >= 0) & (ids < E)
    keys = tl.where(valid, ids, -1)

    # Rank of each slot among the earlier slots of the block with the same expert.
    rank = tl.zeros([BLOCK], dtype=tl.int32)
    for c in tl.static_range(BLOCK // CHUNK):
        theirs = c * CHUNK + tl.arange(0, CHUNK)
        other = tl.load(ids_ptr + first + theirs, mask=first + theirs < S, other=-1)
        other = tl.where((other >= 0) & (other < E), other, -1)
        same = (keys[:, None] == other[None, :]) & (theirs[None, :] < mine[:, None])
        rank += tl.sum(same.to(tl.int32), axis=1)

    expert = tl.where(valid, keys, 0)
    base = tl.load(offsets_ptr + expert, mask=valid, other=0)
    base += tl.load(prefix_ptr + expert * NBLK + blk, mask=valid, other=0)
    dest = base + rank
    tl.store(inverse_ptr + offs, tl.where(valid, dest, -1), mask=in_range)
    tl.store(slot_ids_ptr + dest, offs, mask=valid)


@triton.jit
def _move_combine_kernel(x_ptr, inverse_ptr, w_ptr, eo_ptr, xp_ptr, y_ptr,
                         W, H, stride_x, stride_xp, stride_eo, stride_y,
                         TOP_K: tl.constexpr, K_PAD: tl.constexpr,
                         BLOCK_W: tl.constexpr, BLOCK_H: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    choices = tl.arange(0, K_PAD)
    dests = tl.load(inverse_ptr + t * TOP_K + choices, mask=choices < TOP_K, other=-1)
    n_local = tl.sum((dests >= 0).to(tl.int32), axis=0)

    # Move: the token's row is read once per column chunk and stored to each of its rows.
    if n_local > 0:
        for c0 in range(0, W, BLOCK_W):
            cols = c0 + tl.arange(0, BLOCK_W)
            in_row = cols < W
            row = tl.load(x_ptr + t * stride_x + cols, mask=in_row)
            for j in tl.static_range(TOP_K):
                d = tl.load(inverse_ptr + t * TOP_K + j).to(tl.int64)
                tl.store(xp_ptr + d * stride_xp + cols, row, mask=in_row & (d >= 0))

    # Combine: pull the k expert-output rows, fp32 sum in slot order, one bf16 rounding.
    for c0 in range(0, H, BLOCK_H):
        cols = c0 + tl.arange(0, BLOCK_H)
        in_row = cols < H
        acc = tl.zeros([BLOCK_H], dtype=tl.float32)
        for j in tl.static_range(TOP_K):
            d = tl.load(inverse_ptr + t * TOP_K + j).to(tl.int64)
            w = tl.load(w_ptr + t * TOP_K + j)
            v = tl.load(eo_ptr + d * stride_eo + cols, mask=in_row & (d >= 0), other=0.0)
            acc += v.to(tl.float32) * w
        tl.store(y_ptr + t * stride_y + cols, acc.to(y_ptr.dtype.element_ty), mask=in_row)


def run(x, topk_ids, topk_weights, expert_out, x_perm, num_experts, align):
    for name, t in (("x", x), ("topk_ids", topk_ids), ("topk_weights", topk_weights),
                    ("expert_out", expert_out), ("x_perm", x_perm)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    tokens, top_k = topk_ids.shape
    slots = tokens * top_k
    rows, width = x_perm.shape
    hidden = expert_out.shape[1]
    if rows != slots + num_experts * (align - 1) or expert_out.shape[0] != rows:
        raise ValueError("x_perm and expert_out must have T * top_k + E * (align - 1) rows")
    if x.shape != (tokens, width) or x.dtype != x_perm.dtype:
        raise ValueError("x and x_perm must hold rows of the same width and dtype")
    device = topk_ids.device

    e_pad = max(32, triton.next_power_of_2(num_experts))   # tl.histogram wants >= 32 bins
    n_blocks = triton.cdiv(slots, _SLOTS_PER_BLOCK)
    fill_per_prog = triton.cdiv(triton.cdiv(rows, n_blocks), _FILL_BLOCK) * _FILL_BLOCK
    scan_chunk = max(1, _SCAN_TILE // e_pad)

    hist = torch.empty((num_experts, n_blocks), dtype=torch.int32, device=device)
    prefix = torch.empty((num_experts, n_blocks), dtype=torch.int32, device=device)
    sorted_slot_ids = torch.empty((rows,), dtype=torch.int32, device=device)
    expert_counts = torch.empty((num_experts,), dtype=torch.int32, device=device)
    expert_offsets = torch.empty((num_experts + 1,), dtype=torch.int32, device=device)
    inverse = torch.empty((tokens, top_k), dtype=torch.int32, device=device)
    y = torch.empty((tokens, hidden), dtype=expert_out.dtype, device=device)

    _histogram_kernel[(n_blocks,)](
        topk_ids, hist, sorted_slot_ids, slots, num_experts, n_blocks, rows, fill_per_prog,
        E_PAD=e_pad, BLOCK=_SLOTS_PER_BLOCK, FILL_BLOCK=_FILL_BLOCK, num_warps=4)
    _scan_kernel[(1,)](
        hist, prefix, expert_counts, expert_offsets, num_experts, n_blocks, align,
        E_PAD=e_pad, CHUNK=scan_chunk, num_warps=8)
    _rank_kernel[(n_blocks,)](
        topk_ids, prefix, expert_offsets, inverse, sorted_slot_ids, slots, num_experts,
        n_blocks, BLOCK=_SLOTS_PER_BLOCK, CHUNK=_RANK_CHUNK, num_warps=8)
    _move_combine_kernel[(tokens,)](
        x, inverse, topk_weights, expert_out, x_perm, y,
        width, hidden, x.stride(0), x_perm.stride(0), expert_out.stride(0), y.stride(0),
        TOP_K=top_k, K_PAD=triton.next_power_of_2(top_k),
        BLOCK_W=_COPY_BYTES // x.element_size(), BLOCK_H=_COMBINE_COLS, num_warps=4)
    return sorted_slot_ids, expert_counts, expert_offsets, inverse, y
