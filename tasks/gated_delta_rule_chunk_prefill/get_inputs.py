"""Inputs of one gated delta rule prefill call over packed sequences.

The sequences of a workload are packed along one token axis in a random order (drawn anew for
every trial), so the sequence boundaries move between trials while the lengths stay the
workload's. Queries and keys are unit vectors, as the model's L2 normalization makes them. The
decay follows the model's gate, g = -A_h * softplus(a_t + dt_bias), with one rate A_h per value
head drawn log-uniformly from 1e-3 to 16: some heads forget within a token, others keep their
state for thousands of tokens. The write strength is beta = sigmoid(b_t). Every sequence starts
from a nonzero state, as it does when a prompt continues a cached prefix.
"""

import math

import torch

# Range of the per-head decay rates A_h (log-uniform) and the gate's bias.
DECAY_RATE_MIN = 1e-3
DECAY_RATE_MAX = 16.0
DT_BIAS = 1.0


def _unit_rows(shape, gen, device):
    x = torch.randn(shape, generator=gen, dtype=torch.float32, device=device)
    return (x / x.norm(dim=-1, keepdim=True)).to(torch.bfloat16)


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    h_qk = int(config["h_qk"])
    h_v = int(config["h_v"])
    d_k = int(config["d_k"])
    d_v = int(config["d_v"])
    total = int(config["T"])
    lengths = [int(n) for n in config["seq_lens"]]
    scale = float(config["scale"])
    if sum(lengths) != total or len(lengths) != int(config["n_seqs"]):
        raise ValueError("seq_lens must hold n_seqs lengths that sum to T")
    if min(lengths) < 1 or h_v % h_qk:
        raise ValueError("every sequence holds a token; h_v is a multiple of h_qk")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    order = torch.randperm(len(lengths), generator=gen, device=device)
    packed = torch.tensor(lengths, dtype=torch.int32, device=device)[order]
    cu_seqlens = torch.zeros(len(lengths) + 1, dtype=torch.int32, device=device)
    cu_seqlens[1:] = torch.cumsum(packed, dim=0)

    q = _unit_rows((1, total, h_qk, d_k), gen, device)
    k = _unit_rows((1, total, h_qk, d_k), gen, device)
    v = torch.randn((1, total, h_v, d_v), generator=gen, dtype=torch.float32,
                    device=device).to(torch.bfloat16)
    log_rate = torch.rand((h_v,), generator=gen, dtype=torch.float32, device=device)
    log_rate = math.log(DECAY_RATE_MIN) + log_rate * math.log(DECAY_RATE_MAX / DECAY_RATE_MIN)
    a = torch.randn((1, total, h_v), generator=gen, dtype=torch.float32, device=device)
    g = -log_rate.exp() * torch.nn.functional.softplus(a + DT_BIAS)
    b = torch.randn((1, total, h_v), generator=gen, dtype=torch.float32, device=device)
    beta = torch.sigmoid(b).to(torch.bfloat16)
    # A state whose products with unit keys have unit variance, like the values it stores.
    initial_state = torch.randn((len(lengths), h_v, d_k, d_v), generator=gen,
                                dtype=torch.float32, device=device)
    return [q, k, v, g.contiguous(), beta, initial_state, cu_seqlens, scale]
