"""Anchor: the routing as inference frameworks write it in PyTorch when no fused routing kernel
is at hand (the DeepSeek-V3 model code's gate): torch.topk for the group top-2, the kept groups
and the experts, a boolean group mask expanded over the experts, then a small sort of the k
chosen ids for the task's ascending-id output and a gather of their unbiased scores.

torch.topk promises no order among equal values, so this path follows the task's tie rule only
where no exact ties occur; the timed workloads' inputs have none (every decision has a margin),
the "ties" quick workloads do and are not for this anchor."""

import torch


def run(router_logits, correction_bias, n_group, topk_group, top_k, routed_scaling_factor):
    tokens, experts = router_logits.shape
    scores = router_logits.sigmoid()
    biased = scores + correction_bias[None, :]
    grouped = biased.view(tokens, n_group, experts // n_group)
    group_scores = grouped.topk(2, dim=-1).values.sum(dim=-1)
    kept = group_scores.topk(topk_group, dim=-1).indices
    dropped = torch.ones((tokens, n_group), dtype=torch.bool, device=router_logits.device)
    dropped.scatter_(1, kept, False)
    candidates = grouped.masked_fill(dropped[:, :, None], float("-inf")).view(tokens, experts)
    chosen = candidates.topk(top_k, dim=-1).indices
    topk_ids = chosen.sort(dim=-1).values
    weights = scores.gather(1, topk_ids)
    weights = weights / weights.sum(dim=-1, keepdim=True) * routed_scaling_factor
    return weights, topk_ids.to(torch.int32)
