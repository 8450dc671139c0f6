"""Inputs of one Hadamard rotation + FP8 quantization call.

x holds activation rows the way they reach an online rotation: roughly Gaussian values whose
per-channel spread varies (log-normal), a few outlier channels about 30 times larger than the
rest (the reason the rotation is applied before FP8 quantization), and a per-token gain.
Channels are positions along the last axis, per head.
"""

import torch

OUTLIER_FRACTION = 0.005
OUTLIER_GAIN = 30.0


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    tokens = int(config["T"])
    heads = int(config["heads"])
    n = int(config["n"])

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    channel = torch.exp(0.5 * torch.randn((heads, n), generator=gen, device=device))
    outliers = torch.rand((heads, n), generator=gen, device=device) < OUTLIER_FRACTION
    channel = torch.where(outliers, channel * OUTLIER_GAIN, channel)
    token = torch.exp(0.3 * torch.randn((tokens, 1, 1), generator=gen, device=device))
    x = torch.randn((tokens, heads, n), generator=gen, device=device)
    x = (x * channel[None] * token).to(torch.bfloat16)
    return [x]
