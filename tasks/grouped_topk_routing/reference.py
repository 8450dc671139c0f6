"""Group-limited, bias-corrected top-k routing (sigmoid scores, DeepSeek-V3 "noaux_tc"), written
the direct way: one PyTorch operator per step over the whole [T, E] score matrix.

Every step materializes a [T, E] or [T, n_group] tensor. The selections use a stable descending
sort instead of torch.topk, because the task fixes how ties are broken (the lower index wins) and
torch.topk does not promise an order among equal values. The chosen experts are returned in
ascending expert id, the canonical order of the chosen set, with their weights in the same order.
"""

import torch


def run(router_logits, correction_bias, n_group, topk_group, top_k, routed_scaling_factor):
    tokens, experts = router_logits.shape
    group_size = experts // n_group

    scores = router_logits.sigmoid()                      # [T, E], the weights come from these
    biased = scores + correction_bias[None, :]            # [T, E], the selection uses these

    # Group score: the sum of the two best biased scores of each group.
    grouped = biased.view(tokens, n_group, group_size)
    group_scores = grouped.topk(2, dim=-1).values.sum(dim=-1)   # [T, n_group]

    # Keep the topk_group best groups (ties: the lower group index first).
    group_order = torch.sort(group_scores, dim=-1, descending=True, stable=True).indices
    kept_groups = group_order[:, :topk_group]
    group_mask = torch.zeros((tokens, n_group), dtype=torch.bool, device=router_logits.device)
    group_mask.scatter_(1, kept_groups, True)
    expert_mask = group_mask[:, :, None].expand(tokens, n_group, group_size).reshape(tokens, experts)

    # The top_k best biased scores among the experts of the kept groups (ties: the lower id first).
    candidates = biased.masked_fill(~expert_mask, float("-inf"))
    expert_order = torch.sort(candidates, dim=-1, descending=True, stable=True).indices
    chosen = expert_order[:, :top_k]
    topk_ids = torch.sort(chosen, dim=-1).values          # the chosen set, ascending expert id

    # Weights: the unbiased scores of the chosen experts, normalized to sum 1, then scaled.
    weights = scores.gather(1, topk_ids)
    weights = weights / weights.sum(dim=-1, keepdim=True) * routed_scaling_factor
    return weights, topk_ids.to(torch.int32)
