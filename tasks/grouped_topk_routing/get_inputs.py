"""Inputs of one routing call: router logits [T, E] and the per-expert correction bias [E].

Two distributions:

* "realistic": the logit of token t for expert e is
      BASE + popularity[e] + TOPIC_STD * topic[t, group(e)] + NOISE_STD * noise[t, e]
  with standard normal popularity (scaled by POPULARITY_STD), topic and noise. Some experts are
  popular for every token (routing skew) and every token leans towards a few groups. The
  correction bias is what auxiliary-loss-free balancing learns: it pushes popular experts down,
  about -BIAS_SLOPE * popularity (BIAS_SLOPE is the sigmoid's slope where the chosen scores lie),
  plus a little noise; the busiest expert then gets about 1.6 times the mean load.
  Rows are then redrawn until every decision of the routing is taken by a margin of at least
  MARGIN in biased score (computed in float64): the topk_group-th and the next group score, and
  the top_k-th and the next candidate expert. So an implementation whose scores differ from the
  reference's by a few float32 roundings chooses the same experts, and the chosen sets can be
  compared exactly. Rows that need a redraw are rare (under 1 % of them).
* "ties": a router whose correction bias is still zero and whose logits take six values only,
  the logits of the probabilities LEVELS. Equal scores, equal group scores and ties at both
  boundaries are then the common case, and they are exact in any implementation (equal inputs
  give equal scores). Two different pairs of levels never have the same sum (the level
  numerators form a Sidon set), so every group score that is not an exact tie differs from the
  others by at least 1/26.
"""

import math

import torch

BASE = -2.0
POPULARITY_STD = 0.5
TOPIC_STD = 0.5
NOISE_STD = 1.0
BIAS_SLOPE = 0.2         # the sigmoid's slope where the chosen scores lie (0.5 to 0.8)
BIAS_NOISE_STD = 0.02
MARGIN = 1e-4
MAX_REDRAWS = 64

LEVEL_NUMERATORS = [2, 3, 5, 9, 14, 22]        # {0, 1, 3, 7, 12, 20} + 2: a Sidon set
LEVEL_DENOMINATOR = 26
LEVEL_WEIGHTS = [8.0, 6.0, 5.0, 4.0, 2.0, 1.0]  # the best scores are the rarest


def decision_margins(router_logits, correction_bias, n_group, topk_group, top_k):
    """Per token, the smallest biased-score gap at the two boundaries of the routing, in float64
    (+inf where a boundary does not exist)."""
    tokens, experts = router_logits.shape
    biased = torch.sigmoid(router_logits.double()) + correction_bias.double()[None, :]
    grouped = biased.view(tokens, n_group, experts // n_group)
    group_scores = grouped.topk(2, dim=-1).values.sum(dim=-1)
    margin = torch.full((tokens,), math.inf, dtype=torch.float64, device=router_logits.device)
    if topk_group < n_group:
        best = group_scores.topk(topk_group + 1, dim=-1).values
        margin = torch.minimum(margin, best[:, topk_group - 1] - best[:, topk_group])
    kept = group_scores.topk(topk_group, dim=-1).indices
    mask = torch.zeros((tokens, n_group), dtype=torch.bool, device=router_logits.device)
    mask.scatter_(1, kept, True)
    candidates = grouped.masked_fill(~mask[:, :, None], -math.inf).view(tokens, experts)
    if top_k < candidates.shape[1]:
        best = candidates.topk(top_k + 1, dim=-1).values
        margin = torch.minimum(margin, best[:, top_k - 1] - best[:, top_k])
    return margin


def _realistic_rows(rows, n_group, popularity, gen, device):
    experts = popularity.shape[0]
    topic = torch.randn((rows, n_group), generator=gen, device=device)
    noise = torch.randn((rows, experts), generator=gen, device=device)
    topic = topic.repeat_interleave(experts // n_group, dim=1)
    return BASE + popularity[None, :] + TOPIC_STD * topic + NOISE_STD * noise


def _realistic(tokens, experts, n_group, topk_group, top_k, gen, device):
    popularity = POPULARITY_STD * torch.randn((experts,), generator=gen, device=device)
    bias = -BIAS_SLOPE * popularity + BIAS_NOISE_STD * torch.randn((experts,), generator=gen,
                                                                     device=device)
    logits = _realistic_rows(tokens, n_group, popularity, gen, device)
    for _ in range(MAX_REDRAWS):
        bad = decision_margins(logits, bias, n_group, topk_group, top_k) < MARGIN
        count = int(bad.sum())
        if count == 0:
            return logits.contiguous(), bias.contiguous()
        logits[bad] = _realistic_rows(count, n_group, popularity, gen, device)
    raise RuntimeError("get_inputs: rows without a clear routing decision after redrawing")


def _ties(tokens, experts, gen, device):
    levels = torch.tensor([n / LEVEL_DENOMINATOR for n in LEVEL_NUMERATORS], dtype=torch.float64,
                          device=device)
    level_logits = torch.log(levels / (1.0 - levels)).to(torch.float32)
    weights = torch.tensor(LEVEL_WEIGHTS, dtype=torch.float32, device=device)
    picks = torch.multinomial(weights, tokens * experts, replacement=True, generator=gen)
    logits = level_logits[picks].view(tokens, experts).contiguous()
    bias = torch.zeros((experts,), dtype=torch.float32, device=device)
    return logits, bias


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    tokens = int(config["T"])
    experts = int(config["E"])
    n_group = int(config["n_group"])
    topk_group = int(config["topk_group"])
    top_k = int(config["top_k"])
    scaling = float(config["routed_scaling_factor"])
    distribution = config.get("distribution", "realistic")
    if experts % n_group != 0 or experts // n_group < 2:
        raise ValueError("E must split into n_group groups of at least 2 experts")
    if not 1 <= topk_group <= n_group or not 1 <= top_k <= topk_group * (experts // n_group):
        raise ValueError("need 1 <= topk_group <= n_group and 1 <= top_k <= topk_group * E / n_group")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))
    if distribution == "realistic":
        logits, bias = _realistic(tokens, experts, n_group, topk_group, top_k, gen, device)
    elif distribution == "ties":
        logits, bias = _ties(tokens, experts, gen, device)
    else:
        raise ValueError(f"unknown distribution {distribution!r}")
    return [logits, bias, n_group, topk_group, top_k, scaling]
