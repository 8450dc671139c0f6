"""Anchor: the chunked (state-space dual) form in library calls, unfused: what one writes with
PyTorch alone once the chunked algorithm is known, in the manner of the minimal SSD listing that
accompanies Mamba-2. The optimized Triton path of the Mamba-2 authors' package is not installed
on the device, so this is the closest library path it has.

With chunks of 256 tokens, all in fp32: step sizes and the chunk-local cumulative sums of
dt A; the intra-chunk outputs as (C B^T per group) times the decay matrix and dt, multiplied by
x; one state contribution per chunk; the states entering every chunk from a decay matrix over
the chunk boundaries (a segment sum, so no long cumulative sum is differenced); the outputs of
the entering states; the skip term. Every intermediate is a full tensor in memory (the
intra-chunk score tensor is batch x heads x seq_len x 256 fp32). Runs eagerly.
"""

import torch
import torch.nn.functional as F

_CHUNK = 256


def _segment_decay(log_decay):
    """exp(sum_{j <= c < i} log_decay[c]) for j <= i, else 0: [..., n] -> [..., n + 1, n + 1]."""
    n = log_decay.shape[-1] + 1
    padded = F.pad(log_decay, (1, 0))  # [..., n]; entry c + 1 is chunk c
    rep = padded[..., None, :].expand(*padded.shape[:-1], n, n)  # [..., i, j] = padded[j]
    strict = torch.ones(n, n, dtype=torch.bool, device=log_decay.device).tril(-1)
    summed = torch.cumsum(rep.transpose(-1, -2).masked_fill(~strict, 0.0), dim=-2)
    # summed[i, j] = sum_{j < c' <= i} padded[c'] = sum of chunks j .. i-1
    keep = torch.ones(n, n, dtype=torch.bool, device=log_decay.device).tril()
    return torch.exp(summed.masked_fill(~keep, float("-inf")))


def run(x, dt, A, B, C, D, dt_bias, initial_states):
    batch, seq_len, heads, head_dim = x.shape
    groups, d_state = B.shape[2], B.shape[3]
    per_group = heads // groups
    chunks = -(-seq_len // _CHUNK)
    pad = chunks * _CHUNK - seq_len

    step = F.softplus(dt.float() + dt_bias)  # [b, t, h]
    xs, bs, cs = x.float(), B.float(), C.float()
    if pad:
        # Padded tokens: dt = 0 (no decay, no input), x = B = C = 0.
        step = F.pad(step, (0, 0, 0, pad))
        xs = F.pad(xs, (0, 0, 0, 0, 0, pad))
        bs = F.pad(bs, (0, 0, 0, 0, 0, pad))
        cs = F.pad(cs, (0, 0, 0, 0, 0, pad))
    # Heads as (group, head within group), tokens as (chunk, position).
    step = step.view(batch, chunks, _CHUNK, groups, per_group)
    xs = xs.view(batch, chunks, _CHUNK, groups, per_group, head_dim)
    bs = bs.view(batch, chunks, _CHUNK, groups, d_state)
    cs = cs.view(batch, chunks, _CHUNK, groups, d_state)
    cum = torch.cumsum(step * A.view(groups, per_group), dim=2)  # [b, c, l, g, r], inclusive

    # Intra-chunk: y_i += sum_{k <= i} (C_i . B_k) exp(cum_i - cum_k) dt_k x_k.
    cb = torch.einsum("bcign,bckgn->bcgik", cs, bs)  # [b, c, g, l, l], once per group
    cum_h = cum.permute(0, 1, 3, 4, 2)  # [b, c, g, r, l]
    causal = torch.ones(_CHUNK, _CHUNK, dtype=torch.bool, device=x.device).tril()
    gap = (cum_h[..., :, None] - cum_h[..., None, :]).masked_fill(~causal, float("-inf"))
    scores = cb[:, :, :, None] * torch.exp(gap) * step.permute(0, 1, 3, 4, 2)[..., None, :]
    y = torch.einsum("bcgrik,bckgrp->bcigrp", scores, xs)
    del scores, gap

    # Chunk states: sum_k exp(cum_last - cum_k) dt_k x_k (outer) B_k.
    to_end = torch.exp(cum[:, :, -1:] - cum) * step  # [b, c, l, g, r]
    states = torch.einsum("bclgr,bclgrp,bclgn->bcgrpn", to_end, xs, bs)
    states = states.reshape(batch, chunks, heads, head_dim, d_state)

    # States entering every chunk, and the final state, over the chunk boundaries.
    log_decay = cum[:, :, -1].reshape(batch, chunks, heads).transpose(1, 2)  # [b, h, c]
    across = _segment_decay(log_decay)  # [b, h, c + 1, c + 1]
    sources = torch.cat([initial_states[:, None], states], dim=1)  # [b, c + 1, h, p, n]
    entering = torch.einsum("bhij,bjhpn->bihpn", across, sources)
    final_states = entering[:, chunks].contiguous()
    entering = entering[:, :chunks].reshape(batch, chunks, groups, per_group, head_dim, d_state)

    # Outputs of the entering states, decayed to each position, and the skip term.
    y += torch.exp(cum)[..., None] * torch.einsum("bclgn,bcgrpn->bclgrp", cs, entering)
    y = y.reshape(batch, chunks * _CHUNK, heads, head_dim)[:, :seq_len]
    y = y + D[:, None] * x.float()
    return y.to(x.dtype), final_states
