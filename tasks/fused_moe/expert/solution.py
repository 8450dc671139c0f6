"""Expert: routed MoE as two grouped GEMMs over an expert-sorted, block-padded slot order.

A slot is one (token, choice) pair, numbered s = t * k + j; there are S = T * k of them.
Every kernel runs on the device in stream order, and nothing is read back to the host:

  1. _count_slots_kernel     counts[e] += 1 per slot with atomics; the returned old value is the
                             slot's rank inside its expert.
  2. _align_blocks_kernel    one program: pads every expert's count up to BLOCK_M, scans the
                             padded counts into expert start rows, writes the expert of every
                             M-block (-1 past the last used block), the number of used rows, and
                             the padding sentinel S into the unused rows of each expert's range.
  3. _scatter_slots_kernel   sorted_slots[start[e] + rank] = s.
  4. _gate_up_kernel         one launch over a fixed grid of max_blocks x N-tiles. Each M-block
                             belongs to one expert; blocks past the used count return at once.
                             The A rows are gathered from x through sorted_slots (row s // k),
                             the gate and up tiles of w1[e] are multiplied against the same A tile
                             into two fp32 accumulators, and silu(gate) * up is formed in the
                             epilogue and stored once in bf16, in sorted row order.
  5. _down_kernel            one launch, same grid shape over H: A rows are read contiguously from
                             the activation buffer, w2[e] tiles stream in, and the epilogue scales
                             each row by its routing weight and stores it to its slot's row.
  6. _sum_slots_kernel       y[t] = sum over j of the k weighted slot rows, in fp32, stored bf16.

The upper bound on padded rows, S + min(E, S) * (BLOCK_M - 1), sizes every buffer and grid, so
the host never needs the routing counts. Tile shapes depend on the average number of rows per
expert (a decode batch gives one or two rows per expert, prefill hundreds).

Numerics versus reference.py: both multiply bf16 operands with fp32 accumulation. The reference
rounds h, silu(gate), the product and the down projection to bf16; here the gate/up results stay in
fp32 through the activation, which is rounded to bf16 once, and the weighted down projection is
rounded once before the fp32 sum over the k slots.

PyTorch is used only to allocate buffers.
"""

import torch
import triton
import triton.language as tl

# Rows of the routing tables handled per program by the two per-slot kernels.
_SLOT_BLOCK = 1024
# Blocks whose expert is resolved per step of the alignment kernel's loop.
_BLOCK_CHUNK = 128
# Columns of y summed per program.
_SUM_BLOCK = 1024

# Tile configurations by the average number of rows per expert (S / E):
# decode (a handful of rows): small BLOCK_M, wide K steps so each program keeps many weight
# bytes in flight; mid (tens of rows): BLOCK_M 64; prefill: 128-row tiles for tensor-core rate.
_CONFIGS = (
    # (max average rows, BLOCK_M,
    #  gate/up: BLOCK_N, BLOCK_K, warps, stages,  down: BLOCK_N, BLOCK_K, warps, stages, GROUP_M)
    (8, 16, (64, 128, 4, 3), (64, 128, 4, 3), 1),
    (64, 64, (64, 64, 4, 4), (128, 64, 4, 4), 8),
    # Hundreds of rows over many small experts (Qwen3-30B prefill): 256-wide down tiles measured
    # about 8 % faster on the H200 (`d2k eval fused_moe --impl expert --workload` of each choice).
    (768, 128, (128, 64, 8, 3), (256, 64, 8, 3), 8),
    (None, 128, (128, 64, 8, 3), (128, 64, 8, 4), 8),
)


def _pick_config(num_slots, num_experts):
    average_rows = num_slots / num_experts
    for limit, block_m, gate_up, down, group_m in _CONFIGS:
        if limit is None or average_rows <= limit:
            return block_m, gate_up, down, group_m
    raise AssertionError("the last configuration has no limit")


@triton.jit
def _count_slots_kernel(
    ids_ptr, counts_ptr, rank_ptr, num_slots, s_id_t, s_id_j,
    TOP_K: tl.constexpr, BLOCK: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < num_slots
    expert = tl.load(ids_ptr + (offs // TOP_K) * s_id_t + (offs % TOP_K) * s_id_j, mask=ok, other=0)
    # The old value of the counter is this slot's position among its expert's rows.
    rank = tl.atomic_add(counts_ptr + expert, 1, mask=ok)
    tl.store(rank_ptr + offs, rank, mask=ok)


@triton.jit
def _align_blocks_kernel(
    counts_ptr, expert_start_ptr, block_expert_ptr, sorted_slots_ptr, rows_used_ptr,
    num_experts, num_slots, max_blocks,
    BLOCK_M: tl.constexpr, E_PAD: tl.constexpr, CHUNK: tl.constexpr,
):
    e = tl.arange(0, E_PAD)
    e_ok = e < num_experts
    counts = tl.load(counts_ptr + e, mask=e_ok, other=0)
    blocks = (counts + BLOCK_M - 1) // BLOCK_M
    blocks_end = tl.cumsum(blocks, axis=0)          # inclusive scan
    blocks_start = blocks_end - blocks
    used_blocks = tl.sum(blocks, axis=0)
    row_start = blocks_start * BLOCK_M
    tl.store(expert_start_ptr + e, row_start, mask=e_ok)
    tl.store(rows_used_ptr, used_blocks * BLOCK_M)

    # Unused rows at the end of each expert's range get the sentinel S (no slot).
    p = tl.arange(0, BLOCK_M)
    pad_rows = blocks * BLOCK_M - counts
    pad_pos = (row_start + counts)[:, None] + p[None, :]
    pad_ok = e_ok[:, None] & (p[None, :] < pad_rows[:, None])
    sentinel = tl.zeros((E_PAD, BLOCK_M), dtype=tl.int32) + num_slots
    tl.store(sorted_slots_ptr + pad_pos, sentinel, mask=pad_ok)

    # Block b belongs to the expert whose block range contains it: the number of experts whose
    # range ends at or before b (empty experts end where the previous one ends, so they are
    # skipped). Blocks past the used ones get -1.
    for b0 in range(0, max_blocks, CHUNK):
        b = b0 + tl.arange(0, CHUNK)
        owner = tl.sum((blocks_end[None, :] <= b[:, None]).to(tl.int32), axis=1)
        owner = tl.where(b < used_blocks, owner, -1)
        tl.store(block_expert_ptr + b, owner, mask=b < max_blocks)


@triton.jit
def _scatter_slots_kernel(
    ids_ptr, rank_ptr, expert_start_ptr, sorted_slots_ptr, num_slots, s_id_t, s_id_j,
    TOP_K: tl.constexpr, BLOCK: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < num_slots
    expert = tl.load(ids_ptr + (offs // TOP_K) * s_id_t + (offs % TOP_K) * s_id_j, mask=ok, other=0)
    rank = tl.load(rank_ptr + offs, mask=ok, other=0)
    start = tl.load(expert_start_ptr + expert, mask=ok, other=0)
    tl.store(sorted_slots_ptr + start + rank, offs, mask=ok)


@triton.jit
def _tile_coords(pid, num_blocks_m, num_tiles_n, GROUP_M: tl.constexpr):
    # Grouped order: GROUP_M consecutive M-blocks (mostly one expert) sweep the N tiles
    # together, so a weight tile is fetched from HBM once and then hit in L2.
    per_group = GROUP_M * num_tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_rows = tl.minimum(num_blocks_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows
    return pid_m, pid_n


@triton.jit
def _gate_up_kernel(
    x_ptr, w1_ptr, act_ptr, sorted_slots_ptr, block_expert_ptr, rows_used_ptr,
    num_slots, inter, hidden, num_blocks_m,
    s_x_t, s_x_h, s_w1_e, s_w1_n, s_w1_h, s_act_r,
    TOP_K: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr, EVEN_K: tl.constexpr, EVEN_N: tl.constexpr,
):
    # act[r, n] = silu(x[slot_r // k] . w1[e, n]) * (x[slot_r // k] . w1[e, inter + n]) for the
    # rows r of one M-block of expert e, r in sorted (expert-major, padded) order.
    pid_m, pid_n = _tile_coords(tl.program_id(0), num_blocks_m, tl.cdiv(inter, BLOCK_N), GROUP_M)
    if pid_m * BLOCK_M >= tl.load(rows_used_ptr):
        return
    expert = tl.load(block_expert_ptr + pid_m).to(tl.int64)

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    slot = tl.load(sorted_slots_ptr + rows)
    row_ok = slot < num_slots
    token = tl.where(row_ok, slot // TOP_K, 0).to(tl.int64)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    n_ok = rn < inter
    rk = tl.arange(0, BLOCK_K)

    # A: gathered token rows [BLOCK_M, BLOCK_K]; B: w1 rows read as [BLOCK_K, BLOCK_N] tiles.
    a_ptrs = x_ptr + token[:, None] * s_x_t + rk[None, :] * s_x_h
    gate_ptrs = w1_ptr + expert * s_w1_e + rn.to(tl.int64)[None, :] * s_w1_n + rk[:, None] * s_w1_h
    up_ptrs = gate_ptrs + inter * s_w1_n

    acc_gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, hidden, BLOCK_K):
        if EVEN_K:
            a = tl.load(a_ptrs, mask=row_ok[:, None], other=0.0)
            if EVEN_N:
                b_gate = tl.load(gate_ptrs)
                b_up = tl.load(up_ptrs)
            else:
                b_gate = tl.load(gate_ptrs, mask=n_ok[None, :], other=0.0)
                b_up = tl.load(up_ptrs, mask=n_ok[None, :], other=0.0)
        else:
            k_ok = (k0 + rk) < hidden
            a = tl.load(a_ptrs, mask=row_ok[:, None] & k_ok[None, :], other=0.0)
            b_mask = k_ok[:, None] & n_ok[None, :]
            b_gate = tl.load(gate_ptrs, mask=b_mask, other=0.0)
            b_up = tl.load(up_ptrs, mask=b_mask, other=0.0)
        acc_gate += tl.dot(a, b_gate)
        acc_up += tl.dot(a, b_up)
        a_ptrs += BLOCK_K * s_x_h
        gate_ptrs += BLOCK_K * s_w1_h
        up_ptrs += BLOCK_K * s_w1_h

    act = acc_gate * tl.sigmoid(acc_gate) * acc_up
    # Every row of the block is written (padding rows hold zeros), so the down kernel can read
    # whole blocks without a row mask.
    out_ptrs = act_ptr + rows.to(tl.int64)[:, None] * s_act_r + rn[None, :]
    if EVEN_N:
        tl.store(out_ptrs, act.to(act_ptr.dtype.element_ty))
    else:
        tl.store(out_ptrs, act.to(act_ptr.dtype.element_ty), mask=n_ok[None, :])


@triton.jit
def _down_kernel(
    act_ptr, w2_ptr, out_ptr, sorted_slots_ptr, block_expert_ptr, rows_used_ptr, weights_ptr,
    num_slots, hidden, inter, num_blocks_m,
    s_act_r, s_w2_e, s_w2_n, s_w2_i, s_out_s, s_wt_t, s_wt_j,
    TOP_K: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr, EVEN_K: tl.constexpr, EVEN_N: tl.constexpr,
):
    # out[slot_r, n] = weight[slot_r] * (act[r] . w2[e, n]) for the rows r of one M-block.
    pid_m, pid_n = _tile_coords(tl.program_id(0), num_blocks_m, tl.cdiv(hidden, BLOCK_N), GROUP_M)
    if pid_m * BLOCK_M >= tl.load(rows_used_ptr):
        return
    expert = tl.load(block_expert_ptr + pid_m).to(tl.int64)

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    n_ok = rn < hidden
    rk = tl.arange(0, BLOCK_K)

    a_ptrs = act_ptr + rows.to(tl.int64)[:, None] * s_act_r + rk[None, :]
    b_ptrs = w2_ptr + expert * s_w2_e + rn.to(tl.int64)[None, :] * s_w2_n + rk[:, None] * s_w2_i

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, inter, BLOCK_K):
        if EVEN_K:
            a = tl.load(a_ptrs)
            if EVEN_N:
                b = tl.load(b_ptrs)
            else:
                b = tl.load(b_ptrs, mask=n_ok[None, :], other=0.0)
        else:
            k_ok = (k0 + rk) < inter
            a = tl.load(a_ptrs, mask=k_ok[None, :], other=0.0)
            b = tl.load(b_ptrs, mask=k_ok[:, None] & n_ok[None, :], other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * s_w2_i

    slot = tl.load(sorted_slots_ptr + rows)
    row_ok = slot < num_slots
    safe_slot = tl.where(row_ok, slot, 0)
    weight = tl.load(weights_ptr + (safe_slot // TOP_K) * s_wt_t + (safe_slot % TOP_K) * s_wt_j,
                     mask=row_ok, other=0.0)
    out = (acc * weight[:, None]).to(out_ptr.dtype.element_ty)
    out_ptrs = out_ptr + safe_slot.to(tl.int64)[:, None] * s_out_s + rn[None, :]
    tl.store(out_ptrs, out, mask=row_ok[:, None] & n_ok[None, :])


@triton.jit
def _sum_slots_kernel(
    slot_out_ptr, y_ptr, hidden, s_out_s, s_y_t, s_y_h,
    TOP_K: tl.constexpr, BLOCK: tl.constexpr,
):
    t = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    ok = cols < hidden
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for j in tl.static_range(TOP_K):
        acc += tl.load(slot_out_ptr + (t * TOP_K + j) * s_out_s + cols, mask=ok, other=0.0).to(tl.float32)
    tl.store(y_ptr + t * s_y_t + cols * s_y_h, acc.to(y_ptr.dtype.element_ty), mask=ok)


def run(x, w1, w2, topk_ids, topk_weights):
    if x.ndim != 2 or w1.ndim != 3 or w2.ndim != 3 or topk_ids.ndim != 2 or topk_weights.ndim != 2:
        raise ValueError("expected x [T, H], w1 [E, 2I, H], w2 [E, H, I], topk_ids and topk_weights [T, k]")
    tokens, hidden = x.shape
    num_experts, two_inter, _ = w1.shape
    inter = two_inter // 2
    top_k = topk_ids.shape[1]
    if (w1.shape[2] != hidden or two_inter % 2 or tuple(w2.shape) != (num_experts, hidden, inter)
            or tuple(topk_weights.shape) != (tokens, top_k) or topk_ids.shape[0] != tokens):
        raise ValueError("inconsistent MoE shapes")

    if tokens * top_k == 0:
        return torch.empty((tokens, hidden), dtype=x.dtype, device=x.device)
    return _forward(x, w1, w2, topk_ids, topk_weights, *_pick_config(tokens * top_k, num_experts))


def _forward(x, w1, w2, topk_ids, topk_weights, block_m, gate_up_cfg, down_cfg, group_m):
    """The six launches for one tile configuration."""
    tokens, hidden = x.shape
    num_experts = w1.shape[0]
    inter = w1.shape[1] // 2
    top_k = topk_ids.shape[1]
    num_slots = tokens * top_k
    dev = x.device
    y = torch.empty((tokens, hidden), dtype=x.dtype, device=dev)

    g_bn, g_bk, g_warps, g_stages = gate_up_cfg
    d_bn, d_bk, d_warps, d_stages = down_cfg
    # Every expert with rows wastes fewer than BLOCK_M rows of padding, and at most
    # min(E, S) experts have rows: a bound known without looking at the routing.
    max_blocks = triton.cdiv(num_slots + min(num_experts, num_slots) * (block_m - 1), block_m)
    max_rows = max_blocks * block_m

    counts = torch.zeros((num_experts,), dtype=torch.int32, device=dev)
    rank = torch.empty((num_slots,), dtype=torch.int32, device=dev)
    expert_start = torch.empty((num_experts,), dtype=torch.int32, device=dev)
    block_expert = torch.empty((max_blocks,), dtype=torch.int32, device=dev)
    sorted_slots = torch.empty((max_rows,), dtype=torch.int32, device=dev)
    rows_used = torch.empty((1,), dtype=torch.int32, device=dev)
    act = torch.empty((max_rows, inter), dtype=x.dtype, device=dev)
    slot_out = torch.empty((num_slots, hidden), dtype=x.dtype, device=dev)

    slot_grid = (triton.cdiv(num_slots, _SLOT_BLOCK),)
    _count_slots_kernel[slot_grid](
        topk_ids, counts, rank, num_slots, topk_ids.stride(0), topk_ids.stride(1),
        TOP_K=top_k, BLOCK=_SLOT_BLOCK, num_warps=4,
    )
    _align_blocks_kernel[(1,)](
        counts, expert_start, block_expert, sorted_slots, rows_used,
        num_experts, num_slots, max_blocks,
        BLOCK_M=block_m, E_PAD=max(triton.next_power_of_2(num_experts), 2), CHUNK=_BLOCK_CHUNK,
        num_warps=4,
    )
    _scatter_slots_kernel[slot_grid](
        topk_ids, rank, expert_start, sorted_slots, num_slots, topk_ids.stride(0), topk_ids.stride(1),
        TOP_K=top_k, BLOCK=_SLOT_BLOCK, num_warps=4,
    )

    _gate_up_kernel[(max_blocks * triton.cdiv(inter, g_bn),)](
        x, w1, act, sorted_slots, block_expert, rows_used,
        num_slots, inter, hidden, max_blocks,
        x.stride(0), x.stride(1), w1.stride(0), w1.stride(1), w1.stride(2), act.stride(0),
        TOP_K=top_k, BLOCK_M=block_m, BLOCK_N=g_bn, BLOCK_K=g_bk, GROUP_M=group_m,
        EVEN_K=hidden % g_bk == 0, EVEN_N=inter % g_bn == 0,
        num_warps=g_warps, num_stages=g_stages,
    )
    _down_kernel[(max_blocks * triton.cdiv(hidden, d_bn),)](
        act, w2, slot_out, sorted_slots, block_expert, rows_used, topk_weights,
        num_slots, hidden, inter, max_blocks,
        act.stride(0), w2.stride(0), w2.stride(1), w2.stride(2), slot_out.stride(0),
        topk_weights.stride(0), topk_weights.stride(1),
        TOP_K=top_k, BLOCK_M=block_m, BLOCK_N=d_bn, BLOCK_K=d_bk, GROUP_M=group_m,
        EVEN_K=inter % d_bk == 0, EVEN_N=hidden % d_bn == 0,
        num_warps=d_warps, num_stages=d_stages,
    )
    _sum_slots_kernel[(tokens, triton.cdiv(hidden, _SUM_BLOCK))](
        slot_out, y, hidden, slot_out.stride(0), y.stride(0), y.stride(1),
        TOP_K=top_k, BLOCK=_SUM_BLOCK, num_warps=4,
    )
    return y
