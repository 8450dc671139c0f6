"""Group-limited top-k routing, first correct version: one Triton program per token over its
whole row of E experts (padded to a power of two), every selection step a masked reduction over
that row.

Per token: sigmoid and bias; for each group, the best and second-best biased score (the first
found by a max and its lowest index, the second by a max with that one masked out); topk_group
rounds of "best group score, lowest group index"; top_k rounds of "best candidate score, lowest
expert id" over the experts of the kept groups; then the chosen experts are written in ascending
id (the slot is a running count of the chosen mask) with their normalized, scaled weights.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _route_token_kernel(
    logits_ptr, bias_ptr, weights_ptr, ids_ptr, scale,
    E: tl.constexpr, BLOCK_E: tl.constexpr,
    N_GROUP: tl.constexpr, G_PAD: tl.constexpr, GROUP: tl.constexpr,
    TOPK_GROUP: tl.constexpr, TOP_K: tl.constexpr,
):
    t = tl.program_id(0).to(tl.int64)
    e = tl.arange(0, BLOCK_E)
    valid = e < E
    x = tl.load(logits_ptr + t * E + e, mask=valid, other=0.0)
    b = tl.load(bias_ptr + e, mask=valid, other=0.0)
    s = tl.sigmoid(x)
    biased = tl.where(valid, s + b, float("-inf"))
    group_of = e // GROUP

    # Group scores: the two best biased scores of every group, summed.
    gidx = tl.arange(0, G_PAD)
    group_score = tl.full([G_PAD], float("-inf"), tl.float32)
    for g in tl.static_range(N_GROUP):
        in_group = tl.where(valid & (group_of == g), biased, float("-inf"))
        first = tl.max(in_group, axis=0)
        first_at = tl.min(tl.where(in_group == first, e, BLOCK_E), axis=0)
        second = tl.max(tl.where(e == first_at, float("-inf"), in_group), axis=0)
        group_score = tl.where(gidx == g, first + second, group_score)

    # The kept groups, best first, the lower group index among equal scores.
    available = gidx < N_GROUP
    kept = tl.zeros([BLOCK_E], dtype=tl.int32)
    for _ in tl.static_range(TOPK_GROUP):
        best = tl.max(tl.where(available, group_score, float("-inf")), axis=0)
        best_at = tl.min(tl.where(available & (group_score == best), gidx, G_PAD), axis=0)
        available = available & (gidx != best_at)
        kept = tl.where(group_of == best_at, 1, kept)

    # The chosen experts, best first, the lower id among equal scores.
    open_ = valid & (kept != 0)
    chosen = tl.zeros([BLOCK_E], dtype=tl.int32)
    for _ in tl.static_range(TOP_K):
        best = tl.max(tl.where(open_, biased, float("-inf")), axis=0)
        best_at = tl.min(tl.where(open_ & (biased == best), e, BLOCK_E), axis=0)
        chosen = tl.where(e == best_at, 1, chosen)
        open_ = open_ & (e != best_at)

    # Ascending id: the slot of a chosen expert is the number of chosen experts before it.
    slot = tl.cumsum(chosen, axis=0) - 1
    total = tl.sum(tl.where(chosen != 0, s, 0.0), axis=0)
    weight = s / total * scale
    is_chosen = chosen != 0
    tl.store(ids_ptr + t * TOP_K + slot, e.to(tl.int32), mask=is_chosen)
    tl.store(weights_ptr + t * TOP_K + slot, weight, mask=is_chosen)


def run(router_logits, correction_bias, n_group, topk_group, top_k, routed_scaling_factor):
    assert router_logits.dim() == 2 and router_logits.dtype == torch.float32
    assert router_logits.is_contiguous() and correction_bias.is_contiguous()
    tokens, experts = router_logits.shape
    assert correction_bias.shape == (experts,) and experts % n_group == 0
    group = experts // n_group
    assert group >= 2 and 1 <= topk_group <= n_group and 1 <= top_k <= topk_group * group

    device = router_logits.device
    weights = torch.empty((tokens, top_k), dtype=torch.float32, device=device)
    ids = torch.empty((tokens, top_k), dtype=torch.int32, device=device)
    if tokens == 0:
        return weights, ids
    _route_token_kernel[(tokens,)](
        router_logits, correction_bias, weights, ids, float(routed_scaling_factor),
        E=experts, BLOCK_E=triton.next_power_of_2(experts),
        N_GROUP=n_group, G_PAD=triton.next_power_of_2(n_group), GROUP=group,
        TOPK_GROUP=topk_group, TOP_K=top_k,
    )
    return weights, ids
