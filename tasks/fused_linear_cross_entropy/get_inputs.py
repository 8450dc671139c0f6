"""Inputs of one LM-head plus cross-entropy training step: final hidden states, the output
embedding and the next-token targets.

The hidden states are built so that the logits look like a trained model's rather than noise:
each token has one predicted vocabulary entry whose logit stands PEAK_MIN..PEAK_MAX above the
rest, and the other logits spread with standard deviation about NOISE_LOGIT_STD. The predicted
entries and the targets follow a Zipf law over the vocabulary ids (frequent tokens at low ids,
as byte-pair vocabularies order them); the target equals the predicted entry for HIT_FRACTION of
the tokens and is another Zipf draw otherwise. IGNORE_FRACTION of the positions (prompt and
padding positions) carry the ignore index -100; position 0 never does, so the mean is defined.
"""

import math

import torch

IGNORE_INDEX = -100
WEIGHT_STD = 0.02
NOISE_LOGIT_STD = 1.0
PEAK_MIN = 10.0
PEAK_MAX = 18.0
HIT_FRACTION = 0.6
IGNORE_FRACTION = 0.125
ZIPF_EXPONENT = 1.1


def _zipf(count, vocab, gen, device):
    """Draws from p(id) proportional to (id + 1)^-ZIPF_EXPONENT by inverting the CDF."""
    ranks = torch.arange(1, vocab + 1, dtype=torch.float64, device=device)
    cdf = torch.cumsum(ranks.pow(-ZIPF_EXPONENT), 0)
    cdf = cdf / cdf[-1]
    u = torch.rand(count, generator=gen, dtype=torch.float64, device=device)
    return torch.searchsorted(cdf, u).clamp_(max=vocab - 1)


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    n = int(config["N"])
    h = int(config["H"])
    v = int(config["V"])
    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    weight = torch.randn((v, h), generator=gen, dtype=torch.float32, device=device) * WEIGHT_STD
    predicted = _zipf(n, v, gen, device)
    # Noise part: logits h . W_v with standard deviation NOISE_LOGIT_STD over v.
    noise_std = NOISE_LOGIT_STD / (WEIGHT_STD * math.sqrt(h))
    hidden = torch.randn((n, h), generator=gen, dtype=torch.float32, device=device) * noise_std
    # Peak part: a multiple of the predicted row, scaled so that its own logit gains `peak`.
    peak = PEAK_MIN + (PEAK_MAX - PEAK_MIN) * torch.rand(
        n, generator=gen, dtype=torch.float32, device=device)
    rows = weight[predicted]
    hidden += rows * (peak / rows.pow(2).sum(1))[:, None]

    other = _zipf(n, v, gen, device)
    hit = torch.rand(n, generator=gen, device=device) < HIT_FRACTION
    targets = torch.where(hit, predicted, other)
    ignored = torch.rand(n, generator=gen, device=device) < IGNORE_FRACTION
    ignored[0] = False
    targets = torch.where(ignored, torch.full_like(targets, IGNORE_INDEX), targets)
    return [hidden.to(torch.bfloat16), weight.to(torch.bfloat16), targets.to(torch.int64)]
