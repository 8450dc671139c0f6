"""Mamba-2 SSD scan, written the direct way: the recurrence one token at a time, vectorised over
the batch, the heads and the state.

The step sizes, decays and the step-scaled inputs are computed for the whole sequence first; B
and C are expanded from their groups to every head. Then a loop over the tokens keeps the state
of every (sequence, head) as one fp32 tensor [batch, heads, head_dim, d_state]: decay it, add the
outer product of the token's step-scaled input with its B, and read the token's output by
contracting the state with its C. The skip term D x is added at the end, and y is rounded once
to bf16.

The loop body is `step`, so that a compiled variant can compile one step instead of unrolling
the whole sequence.
"""

import torch
import torch.nn.functional as F


def step(state, decay, x_dt, b, c):
    """One token for every (sequence, head): decay the state, add x_dt (outer) b, return the new
    state and its contraction with c. state [batch, heads, head_dim, d_state] fp32, decay
    [batch, heads], x_dt [batch, heads, head_dim], b and c [batch, heads, d_state]."""
    state = state * decay[:, :, None, None] + x_dt[:, :, :, None] * b[:, :, None, :]
    return state, torch.matmul(state, c[:, :, :, None])[..., 0]


def run(x, dt, A, B, C, D, dt_bias, initial_states, step_fn=step):
    batch, seq_len, heads, head_dim = x.shape
    groups = B.shape[2]
    per_group = heads // groups

    step_size = F.softplus(dt.float() + dt_bias)  # [batch, seq_len, heads]
    decay = torch.exp(step_size * A)  # [batch, seq_len, heads]
    x_dt = x.float() * step_size[..., None]  # [batch, seq_len, heads, head_dim]
    # Head h reads the B and C of group h // per_group.
    b_heads = B.float().repeat_interleave(per_group, dim=2)  # [batch, seq_len, heads, d_state]
    c_heads = C.float().repeat_interleave(per_group, dim=2)

    state = initial_states.float()
    y = torch.empty((batch, seq_len, heads, head_dim), dtype=torch.float32, device=x.device)
    for t in range(seq_len):
        state, y[:, t] = step_fn(state, decay[:, t], x_dt[:, t], b_heads[:, t], c_heads[:, t])
    y += D[:, None] * x.float()
    return y.to(x.dtype), state
