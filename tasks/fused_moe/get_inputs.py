"""Input generator for the fused MoE task."""

import math

import torch

# Spread of the per-expert popularity added to the router logits. Without it every expert
# would receive the same number of tokens on average; with it a few experts are hot and some
# are nearly idle, as in trained routers, so the per-expert row counts are ragged and skewed.
EXPERT_POPULARITY_STD = 0.3


def get_inputs(config):
    """Build the positional arguments of run(x, w1, w2, topk_ids, topk_weights).

    `config` is the workload entry of config.json merged over fixed_params, plus the
    evaluator's "seed" (int) and "device" ("cuda" or "cpu").
    """
    device = torch.device(config.get("device", "cuda"))
    tokens = int(config["T"])
    experts = int(config["E"])
    top_k = int(config["top_k"])
    hidden = int(config["H"])
    inter = int(config["I"])

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    # Activations of unit scale; weights scaled by 1/sqrt(fan_in) so that the gate/up
    # projections and the down projection all produce values of order one.
    x = torch.randn((tokens, hidden), generator=gen, dtype=torch.bfloat16, device=device)
    w1 = torch.randn((experts, 2 * inter, hidden), generator=gen, dtype=torch.bfloat16, device=device)
    w1.mul_(1.0 / math.sqrt(hidden))
    w2 = torch.randn((experts, hidden, inter), generator=gen, dtype=torch.bfloat16, device=device)
    w2.mul_(1.0 / math.sqrt(inter))

    # Router: softmax over noisy logits with a per-call expert popularity, top-k, and the
    # selected probabilities renormalized to sum to one per token.
    popularity = EXPERT_POPULARITY_STD * torch.randn((experts,), generator=gen, dtype=torch.float32, device=device)
    logits = torch.randn((tokens, experts), generator=gen, dtype=torch.float32, device=device)
    probs = torch.softmax(logits + popularity, dim=-1)
    top_probs, top_ids = torch.topk(probs, top_k, dim=-1)
    topk_weights = (top_probs / top_probs.sum(dim=-1, keepdim=True)).contiguous()
    topk_ids = top_ids.to(torch.int32).contiguous()
    return [x, w1, w2, topk_ids, topk_weights]
