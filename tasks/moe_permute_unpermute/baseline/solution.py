"""Baseline: one program per expert finds that expert's slots, then row copies per slot and a
combine per token.

The first correct kernels one writes from the definition. A program per expert walks all the
slots in order, counting its expert's; one program turns the counts into padded offsets (and
sets sorted_slot_ids to -1); a program per expert walks the slots again and places its
expert's slots at its cursor, in order (a prefix sum of the matches within each chunk), which
gives the stable order. A program per slot copies the token's row to the slot's permuted row,
and a program per token sums its expert-output rows in fp32.

What it does not do: every expert's program reads all T * top_k ids twice, so the sort costs
E passes over the ids with only E programs, each walking them one chunk after another; the
activation row of a token is read once per local slot; and the copy and the combine are
separate launches.

PyTorch is used only to allocate the outputs and make views.
"""

import torch
import triton
import triton.language as tl

_SCAN_BLOCK = 1024
_FILL_BLOCK = 1024
_ROW_BLOCK = 1024


@triton.jit
def _count_kernel(ids_ptr, counts_ptr, S, BLOCK: tl.constexpr):
    e = tl.program_id(0)
    hits = tl.zeros([BLOCK], dtype=tl.int32)
    for s0 in range(0, S, BLOCK):
        offs = s0 + tl.arange(0, BLOCK)
        ids = tl.load(ids_ptr + offs, mask=offs < S, other=-1)
        hits += (ids == e).to(tl.int32)
    tl.store(counts_ptr + e, tl.sum(hits, axis=0))


@triton.jit
def _offsets_kernel(counts_ptr, offsets_ptr, slot_ids_ptr, E, R, ALIGN,
                    E_PAD: tl.constexpr, FILL_BLOCK: tl.constexpr):
    experts = tl.arange(0, E_PAD)
    counts = tl.load(counts_ptr + experts, mask=experts < E, other=0)
    padded = (counts + ALIGN - 1) // ALIGN * ALIGN
    ends = tl.cumsum(padded, axis=0)
    tl.store(offsets_ptr + experts, ends - padded, mask=experts < E)
    tl.store(offsets_ptr + E, tl.sum(padded, axis=0))
    for r0 in range(0, R, FILL_BLOCK):
        rows = r0 + tl.arange(0, FILL_BLOCK)
        tl.store(slot_ids_ptr + rows, tl.full([FILL_BLOCK], -1, tl.int32), mask=rows < R)


@triton.jit
def _place_kernel(ids_ptr, offsets_ptr, inverse_ptr, slot_ids_ptr, S, E, BLOCK: tl.constexpr):
    e = tl.program_id(0)
    cursor = tl.load(offsets_ptr + e)
    for s0 in range(0, S, BLOCK):
        offs = s0 + tl.arange(0, BLOCK)
        in_range = offs < S
        ids = tl.load(ids_ptr + offs, mask=in_range, other=-1)
        hit = (ids == e) & in_range
        pos = cursor + tl.cumsum(hit.to(tl.int32), axis=0) - 1
        tl.store(inverse_ptr + offs, pos, mask=hit)
        tl.store(slot_ids_ptr + pos, offs, mask=hit)
        # Expert 0's program also marks the dropped slots.
        dropped = in_range & ((ids < 0) | (ids >= E)) & (e == 0)
        tl.store(inverse_ptr + offs, tl.full([BLOCK], -1, tl.int32), mask=dropped)
        cursor += tl.sum(hit.to(tl.int32), axis=0)


@triton.jit
def _copy_kernel(x_ptr, inverse_ptr, xp_ptr, W, stride_x, stride_xp,
                 TOP_K: tl.constexpr, BLOCK: tl.constexpr):
    slot = tl.program_id(0)
    d = tl.load(inverse_ptr + slot).to(tl.int64)
    if d >= 0:
        t = (slot // TOP_K).to(tl.int64)
        for c0 in range(0, W, BLOCK):
            cols = c0 + tl.arange(0, BLOCK)
            row = tl.load(x_ptr + t * stride_x + cols, mask=cols < W)
            tl.store(xp_ptr + d * stride_xp + cols, row, mask=cols < W)


@triton.jit
def _combine_kernel(inverse_ptr, w_ptr, eo_ptr, y_ptr, H, stride_eo, stride_y,
                    TOP_K: tl.constexpr, BLOCK: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    for c0 in range(0, H, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for j in range(TOP_K):
            d = tl.load(inverse_ptr + t * TOP_K + j).to(tl.int64)
            w = tl.load(w_ptr + t * TOP_K + j)
            v = tl.load(eo_ptr + d * stride_eo + cols, mask=(cols < H) & (d >= 0), other=0.0)
            acc += v.to(tl.float32) * w
        tl.store(y_ptr + t * stride_y + cols, acc.to(y_ptr.dtype.element_ty), mask=cols < H)


def run(x, topk_ids, topk_weights, expert_out, x_perm, num_experts, align):
    for name, t in (("x", x), ("topk_ids", topk_ids), ("topk_weights", topk_weights),
                    ("expert_out", expert_out), ("x_perm", x_perm)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    tokens, top_k = topk_ids.shape
    slots = tokens * top_k
    rows, width = x_perm.shape
    hidden = expert_out.shape[1]
    device = topk_ids.device

    sorted_slot_ids = torch.empty((rows,), dtype=torch.int32, device=device)
    expert_counts = torch.empty((num_experts,), dtype=torch.int32, device=device)
    expert_offsets = torch.empty((num_experts + 1,), dtype=torch.int32, device=device)
    inverse = torch.empty((tokens, top_k), dtype=torch.int32, device=device)
    y = torch.empty((tokens, hidden), dtype=expert_out.dtype, device=device)

    _count_kernel[(num_experts,)](topk_ids, expert_counts, slots, BLOCK=_SCAN_BLOCK)
    _offsets_kernel[(1,)](expert_counts, expert_offsets, sorted_slot_ids, num_experts, rows, align,
                          E_PAD=triton.next_power_of_2(num_experts), FILL_BLOCK=_FILL_BLOCK)
    _place_kernel[(num_experts,)](topk_ids, expert_offsets, inverse, sorted_slot_ids, slots,
                                  num_experts, BLOCK=_SCAN_BLOCK)
    _copy_kernel[(slots,)](x, inverse, x_perm, width, x.stride(0), x_perm.stride(0),
                           TOP_K=top_k, BLOCK=_ROW_BLOCK)
    _combine_kernel[(tokens,)](inverse, topk_weights, expert_out, y, hidden,
                               expert_out.stride(0), y.stride(0), TOP_K=top_k, BLOCK=_ROW_BLOCK)
    return sorted_slot_ids, expert_counts, expert_offsets, inverse, y
