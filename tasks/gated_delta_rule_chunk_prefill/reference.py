"""Gated delta rule prefill, written the direct way: the recurrence one token at a time, for
every sequence and value head at once.

Each sequence's tokens are gathered from the packed axis into a padded fp32 copy ([n_seqs,
steps, h_v, ...], the query and key heads repeated for the value heads that read them), and the
loop takes one step per token position: decay the state, predict the value from the key,
write the gated correction, read the output with the query. A sequence whose tokens are used up
keeps its state. Lengths stay on the device, so the loop runs over as many positions as the
packed axis holds (a bound taken from shapes) and needs no host round trip. The outputs are
scattered back to the packed axis at the end.
"""

import torch


def _step(h, q_t, k_t, v_t, alpha_t, beta_t, live_t, scale):
    """One token of every (sequence, value head): h [n, h_v, d_k, d_v] fp32, the token's
    vectors [n, h_v, d], its decay and write strength [n, h_v], live_t [n] (the sequence still
    has this token). Returns the new state and the token's output [n, h_v, d_v]."""
    decayed = h * alpha_t[:, :, None, None]
    predicted = torch.einsum("nhkv,nhk->nhv", decayed, k_t)
    delta = (v_t - predicted) * beta_t[:, :, None]
    updated = decayed + k_t[:, :, :, None] * delta[:, :, None, :]
    h = torch.where(live_t[:, None, None, None], updated, h)
    o_t = torch.einsum("nhkv,nhk->nhv", h, q_t) * scale
    return h, o_t


def recurrence(step, q, k, v, g, beta, initial_state, cu_seqlens, scale):
    """The whole prefill with `step` as the per-token update (the reference passes _step)."""
    total, h_qk = q.shape[1], q.shape[2]
    h_v, d_v = v.shape[2], v.shape[3]
    n_seqs = cu_seqlens.shape[0] - 1
    group = h_v // h_qk
    device = q.device

    starts = cu_seqlens[:-1].long()
    lengths = cu_seqlens[1:].long() - starts
    steps = total  # no sequence is longer than the packed axis
    offsets = torch.arange(steps, device=device)
    live = offsets[None, :] < lengths[:, None]  # [n, steps]
    pos = (starts[:, None] + offsets[None, :]).masked_fill(~live, 0)

    def per_value_head(x):
        # Value head j reads query/key head j // group: repeat each head group times in place.
        x = x[0][pos].float()  # [n, steps, h_qk, d_k]
        n, s, h, d = x.shape
        return x[:, :, :, None, :].expand(n, s, h, group, d).reshape(n, s, h * group, d)

    qs = per_value_head(q)  # [n, steps, h_v, d_k]
    ks = per_value_head(k)
    vs = v[0][pos].float()  # [n, steps, h_v, d_v]
    alphas = g[0][pos].float().exp()  # [n, steps, h_v]
    betas = beta[0][pos].float()

    h = initial_state.float().clone()
    outs = torch.empty((n_seqs, steps, h_v, d_v), dtype=torch.float32, device=device)
    for t in range(steps):
        h, outs[:, t] = step(h, qs[:, t], ks[:, t], vs[:, t], alphas[:, t], betas[:, t],
                             live[:, t], scale)

    # Padding positions go to a spare row past the packed axis, which is dropped.
    target = torch.where(live, pos, torch.full_like(pos, total)).reshape(-1)
    o = torch.zeros((total + 1, h_v, d_v), dtype=v.dtype, device=device)
    o[target] = outs.reshape(-1, h_v, d_v).to(v.dtype)
    return o[:total].unsqueeze(0), h


def run(q, k, v, g, beta, initial_state, cu_seqlens, scale):
    return recurrence(_step, q, k, v, g, beta, initial_state, cu_seqlens, scale)
