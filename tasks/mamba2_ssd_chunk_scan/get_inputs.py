"""Inputs of one Mamba-2 SSD scan call, drawn the way a Mamba-2 mixer produces them.

x, B and C leave the mixer's causal convolution through a SiLU, so they are SiLU of Gaussian
values: skewed, mostly small, with a positive mean. The per-head parameters follow the model's
initialisation: A = -exp(A_log) with A_log = log(U(1, 16)); dt_bias the inverse softplus of a
step size drawn log-uniformly in [0.001, 0.1] (floored at 1e-4); D near one. The raw step dt is
the projection's output, N(0, 1), so softplus(dt + dt_bias) spreads a head's step sizes over two
orders of magnitude: some heads forget within a few tokens, others remember over thousands, so
the state carried across long spans matters. With `initial_state` set, the state before the first
token is the state an earlier prefill chunk left (fp32, standard deviation 0.1, the magnitude a
slow head's state reaches); otherwise it is zero, as for a fresh prompt.
"""

import math

import torch

INITIAL_STATE_STD = 0.1


def _silu_normal(shape, std, gen, device):
    values = torch.randn(shape, generator=gen, dtype=torch.float32, device=device).mul_(std)
    return (values * torch.sigmoid(values)).to(torch.bfloat16)


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    batch = int(config["batch"])
    seq_len = int(config["seq_len"])
    heads = int(config["heads"])
    head_dim = int(config["head_dim"])
    d_state = int(config["d_state"])
    groups = int(config["groups"])
    initial_state = int(config.get("initial_state", 0))
    if heads % groups:
        raise ValueError("heads must be a multiple of groups")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    x = _silu_normal((batch, seq_len, heads, head_dim), 1.5, gen, device)
    dt = torch.randn((batch, seq_len, heads), generator=gen, dtype=torch.float32,
                     device=device).to(torch.bfloat16)
    B = _silu_normal((batch, seq_len, groups, d_state), 1.5, gen, device)
    C = _silu_normal((batch, seq_len, groups, d_state), 1.5, gen, device)

    a = torch.rand((heads,), generator=gen, dtype=torch.float32, device=device) * 15.0 + 1.0
    A = -torch.exp(torch.log(a))
    log_lo, log_hi = math.log(0.001), math.log(0.1)
    step = torch.exp(torch.rand((heads,), generator=gen, dtype=torch.float32, device=device)
                     * (log_hi - log_lo) + log_lo).clamp_(min=1e-4)
    dt_bias = step + torch.log(-torch.expm1(-step))  # softplus(dt_bias) == step
    D = torch.rand((heads,), generator=gen, dtype=torch.float32, device=device) * 0.5 + 0.75

    initial_states = torch.randn((batch, heads, head_dim, d_state), generator=gen,
                                 dtype=torch.float32, device=device)
    initial_states.mul_(INITIAL_STATE_STD if initial_state else 0.0)
    return [x, dt, A, B, C, D, dt_bias, initial_states]
