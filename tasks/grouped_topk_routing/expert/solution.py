"""Group-limited top-k routing in one Triton kernel: every token's scores stay in registers from
the load of its logits to the store of its experts and weights.

Tile layout. A program holds BLOCK_T tokens as a [G_PAD, BLOCK_T, GROUP_PAD] tile (group, token,
position in the group). The logits are contiguous along the position axis, so Triton spreads that
axis over the lanes with 4 consecutive values per lane (16-byte loads) and, since it orders the
remaining axes from the last one to the first, the token axis next: with 32-expert groups, 8 lanes
cover a group and one warp holds 4 tokens, each lane keeping 4 experts of every group. A
reduction over the group axis is then a loop inside the lane, and one over the positions a few
shuffles among the token's 8 lanes. With a single group of 384 (or 160) experts one warp covers
one token row.

Selection. Every biased score becomes an int64 key: the float's bits mapped to an order-preserving
signed integer in the high half and (E - 1 - id) in the low half. Keys are unique, the largest key
is the largest score with the lowest id among equals, so one max reduction answers "best score,
lowest index" and ties need no second pass.

1. Group score: the best key of the group, then the best key below it; their decoded scores
   summed.
2. Groups: topk_group rounds of a max over the group axis of group keys (score, then the lower
   group index), each taking its winner out.
3. Experts: top_k rounds of "the best key below the previous winner" over the kept groups (no
   tile rewrite per round); the chosen set is every kept key at or above the last winner.
4. Output in ascending expert id: the slot of a chosen expert is the count of chosen experts with
   a lower id (a prefix count inside the group plus the counts of the groups before it). Weights
   are the chosen unbiased sigmoids over their sum times the scaling factor, written straight
   from the registers that hold them.
"""

import torch
import triton
import triton.language as tl

# Key sentinels: below every key of a finite score, above every key.
_KEY_MIN = tl.constexpr(-(2 ** 63))
_KEY_MAX = tl.constexpr(2 ** 63 - 1)


@triton.jit
def _score_key(value, index, COUNT: tl.constexpr):
    """Order-preserving int64 key of (value, lower index first); COUNT bounds the indices."""
    bits = value.to(tl.int32, bitcast=True)
    ordered = bits ^ ((bits >> 31) & 0x7FFFFFFF)
    return (ordered.to(tl.int64) << 32) | (COUNT - 1 - index).to(tl.int64)


@triton.jit
def _key_score(key):
    """The float32 score a key was made from."""
    ordered = (key >> 32).to(tl.int32)
    bits = ordered ^ ((ordered >> 31) & 0x7FFFFFFF)
    return bits.to(tl.float32, bitcast=True)


@triton.jit
def _noaux_tc_route_kernel(
    logits_ptr, bias_ptr, weights_ptr, ids_ptr,
    T, scale,
    E: tl.constexpr, N_GROUP: tl.constexpr, GROUP: tl.constexpr,
    G_PAD: tl.constexpr, GROUP_PAD: tl.constexpr,
    TOPK_GROUP: tl.constexpr, TOP_K: tl.constexpr,
    BLOCK_T: tl.constexpr, PADDED: tl.constexpr,
):
    # Every tensor is 3-D [group, token, position] (size 1 where reduced, keep_dims=True), so
    # the per-group and per-token values stay in the tile's own layout: no layout conversion
    # between the reduction rounds.
    pid = tl.program_id(0)
    g3 = tl.arange(0, G_PAD)[:, None, None]                         # [G_PAD, 1, 1]
    t3 = (pid * BLOCK_T + tl.arange(0, BLOCK_T))[None, :, None]     # [1, BLOCK_T, 1]
    j3 = tl.arange(0, GROUP_PAD)[None, None, :]                     # [1, 1, GROUP_PAD]
    expert3 = g3 * GROUP + j3                                       # [G_PAD, 1, GROUP_PAD]
    row_ok3 = t3 < T

    # Load the logits (16-byte vectors along the position axis) and the bias.
    offsets = t3.to(tl.int64) * E + expert3
    if PADDED:
        valid3 = (g3 < N_GROUP) & (j3 < GROUP)
        live3 = valid3 & row_ok3
        x = tl.load(logits_ptr + offsets, mask=live3, other=0.0)
        b = tl.load(bias_ptr + expert3, mask=valid3, other=0.0)
    else:
        live3 = row_ok3 & (expert3 < E)                             # expert3 < E always holds
        x = tl.load(logits_ptr + offsets, mask=row_ok3, other=0.0)
        b = tl.load(bias_ptr + expert3)

    # Sigmoid through exp2; the biased score only ranks, the plain one is the weight.
    s = 1.0 / (1.0 + tl.exp2(x * -1.4426950408889634))
    key_min = tl.full([G_PAD, BLOCK_T, GROUP_PAD], _KEY_MIN, tl.int64)
    key = tl.where(live3, _score_key(s + b, expert3, E), key_min)

    # 1. Group score: the sum of the two best biased scores of the group.
    best1 = tl.max(key, axis=2, keep_dims=True)                     # [G_PAD, BLOCK_T, 1]
    best2 = tl.max(tl.where(key == best1, key_min, key), axis=2, keep_dims=True)
    group_score = _key_score(best1) + _key_score(best2)

    # 2. Keep TOPK_GROUP groups: the larger score first, the lower group index among equals.
    group_min = tl.full([G_PAD, BLOCK_T, 1], _KEY_MIN, tl.int64)
    group_ok = (g3 < N_GROUP) & row_ok3                             # [G_PAD, BLOCK_T, 1]
    group_key = tl.where(group_ok, _score_key(group_score, g3, G_PAD), group_min)
    kept = tl.zeros([G_PAD, BLOCK_T, 1], dtype=tl.int32)
    for _ in tl.static_range(TOPK_GROUP):
        top = tl.max(group_key, axis=0, keep_dims=True)             # [1, BLOCK_T, 1]
        hit = group_key == top
        kept = tl.where(hit, 1, kept)
        group_key = tl.where(hit, group_min, group_key)

    # 3. TOP_K rounds: the best candidate key below the previous round's winner. The group
    #    axis is reduced first (inside the lane), then the positions (across lanes).
    cand = tl.where(kept != 0, key, key_min)
    last = tl.full([1, BLOCK_T, 1], _KEY_MAX, tl.int64)
    for _ in tl.static_range(TOP_K):
        below = tl.where(cand < last, cand, key_min)
        last = tl.max(tl.max(below, axis=0, keep_dims=True), axis=2, keep_dims=True)
    chosen = (cand >= last) & (cand != key_min)
    chosen_i = chosen.to(tl.int32)

    # 4. Slot in ascending expert id: the chosen experts before it in its group, plus those of
    #    the groups before its group.
    within = tl.cumsum(chosen_i, axis=2) - chosen_i                 # exclusive count in the group
    per_group = tl.sum(chosen_i, axis=2, keep_dims=True)            # [G_PAD, BLOCK_T, 1]
    before = tl.zeros([G_PAD, BLOCK_T, 1], dtype=tl.int32)
    for gg in tl.static_range(G_PAD - 1):
        count_gg = tl.sum(tl.where(g3 == gg, per_group, 0), axis=0, keep_dims=True)
        before += tl.where(g3 > gg, count_gg, 0)
    slot = within + before

    # Weights: the unbiased scores of the chosen experts, normalized, scaled.
    chosen_s = tl.where(chosen, s, 0.0)
    total = tl.sum(tl.sum(chosen_s, axis=0, keep_dims=True), axis=2, keep_dims=True)
    weight = s / total * scale

    out_offsets = t3.to(tl.int64) * TOP_K + slot
    store = chosen & row_ok3
    ids = tl.broadcast_to(expert3, [G_PAD, BLOCK_T, GROUP_PAD])
    tl.store(ids_ptr + out_offsets, ids.to(tl.int32), mask=store)
    tl.store(weights_ptr + out_offsets, weight, mask=store)


def _launch_shape(tokens, group_pad):
    """(tokens per program, warps): a warp holds 32 / lanes tokens, where a token's positions
    in a group span `lanes` lanes of 4 values (at most 32)."""
    lanes = max(1, min(32, group_pad // 4))
    tokens_per_warp = 32 // lanes
    if tokens_per_warp == 1:
        # One warp per token row: a second token per program gives each lane more loads in
        # flight; single-warp programs keep the reductions inside the warp.
        return (2 if tokens > 1024 else 1), 1
    warps = 4 if tokens > 1024 else 1
    return tokens_per_warp * warps, warps


def run(router_logits, correction_bias, n_group, topk_group, top_k, routed_scaling_factor):
    assert router_logits.dim() == 2 and router_logits.dtype == torch.float32
    assert router_logits.is_contiguous() and correction_bias.is_contiguous()
    tokens, experts = router_logits.shape
    assert correction_bias.shape == (experts,) and correction_bias.dtype == torch.float32
    assert experts % n_group == 0
    group = experts // n_group
    assert group >= 2 and 1 <= topk_group <= n_group and 1 <= top_k <= topk_group * group

    device = router_logits.device
    weights = torch.empty((tokens, top_k), dtype=torch.float32, device=device)
    ids = torch.empty((tokens, top_k), dtype=torch.int32, device=device)
    if tokens == 0:
        return weights, ids

    g_pad = triton.next_power_of_2(n_group)
    group_pad = triton.next_power_of_2(group)
    block_t, warps = _launch_shape(tokens, group_pad)
    grid = (triton.cdiv(tokens, block_t),)
    _noaux_tc_route_kernel[grid](
        router_logits, correction_bias, weights, ids,
        tokens, float(routed_scaling_factor),
        E=experts, N_GROUP=n_group, GROUP=group, G_PAD=g_pad, GROUP_PAD=group_pad,
        TOPK_GROUP=topk_group, TOP_K=top_k, BLOCK_T=block_t,
        PADDED=(g_pad != n_group or group_pad != group),
        num_warps=warps,
    )
    return weights, ids
