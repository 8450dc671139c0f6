"""Eager PyTorch definition of chain speculative verification.

For request b with draft tokens d_0 .. d_{n-1}, drafter distributions q_i = draft_probs[b, i],
target distributions p_i = target_probs[b, i] (i = 0 .. n) and uniforms u = uniforms[b]:

    test i passes   <=>  u[i] * q_i[d_i] < p_i[d_i]        (float64 product and compare)
    j = the first position whose test fails, or n when all pass
    residual r      = max(p_j - q_j, 0) in float32         (r = p_n when j = n)
    weights w_t     = trunc(r_t * 2^48) as int64; when they sum to 0, trunc(p_j,t * 2^48)
    C_t             = w_0 + ... + w_t, W = C_{V-1}
    T               = min(floor(u[n] * W) (float64 product), W - 1)
    drawn token     = #{t : C_t <= T}                      (the first t with C_t > T)

Outputs: output_token_ids[b] = d_0 .. d_{j-1}, the drawn token, then -1 up to n + 1 entries;
accepted_token_num[b] = how many of the n tests pass (at any position); emitted_token_num[b] = j.

run(...) is what a non-expert writes first: every position's test at once, then, for every
position in a Python loop, the residual over the whole vocabulary, its integer weights, a
cumulative sum and a binary search, and finally a selection of the position that counts. It
never reads a value back to the host, so the whole call can be captured into a CUDA graph.
"""

import torch

WEIGHT_SCALE = 2.0 ** 48


def _weights(rows):
    """Integer weights of float32 rows: the product with 2^48 is exact in float32; the cast
    truncates toward zero."""
    return (rows * WEIGHT_SCALE).to(torch.int64)


def _draw(residual, fallback, u):
    """The token the inverse CDF of the integer weights of `residual` (or of `fallback` when
    those weigh nothing) gives for the uniforms u; one per row."""
    weights = _weights(residual)
    empty = weights.sum(dim=-1, keepdim=True) == 0
    weights = torch.where(empty, _weights(fallback), weights)
    cdf = torch.cumsum(weights, dim=-1)
    total = cdf[:, -1:]
    threshold = torch.floor(u[:, None] * total.to(torch.float64)).to(torch.int64)
    threshold = torch.minimum(threshold, total - 1)
    return torch.searchsorted(cdf, threshold, right=True).squeeze(1)


def run(draft_probs, draft_token_ids, target_probs, uniforms):
    batch, n_draft, vocab = draft_probs.shape
    device = draft_probs.device
    ids = draft_token_ids.to(torch.int64)

    # Every test at once: the probabilities of the draft tokens under both models.
    p_at = torch.gather(target_probs[:, :n_draft], 2, ids[:, :, None]).squeeze(2)
    q_at = torch.gather(draft_probs, 2, ids[:, :, None]).squeeze(2)
    passed = uniforms[:, :n_draft] * q_at.to(torch.float64) < p_at.to(torch.float64)
    accepted_token_num = passed.sum(dim=1)
    emitted = torch.cumprod(passed.to(torch.int64), dim=1).sum(dim=1)

    # The token drawn at every position, as if that position were the first rejection; the
    # bonus position n draws from the target alone.
    u_draw = uniforms[:, n_draft]
    drawn = []
    for i in range(n_draft):
        residual = torch.clamp(target_probs[:, i] - draft_probs[:, i], min=0.0)
        drawn.append(_draw(residual, target_probs[:, i], u_draw))
    drawn.append(_draw(target_probs[:, n_draft], target_probs[:, n_draft], u_draw))
    drawn = torch.stack(drawn, dim=1)  # [batch, n_draft + 1]
    final = torch.gather(drawn, 1, emitted[:, None])

    positions = torch.arange(n_draft + 1, device=device)[None, :]
    padded_ids = torch.cat([ids, torch.full((batch, 1), -1, dtype=torch.int64, device=device)],
                           dim=1)
    tokens = torch.where(positions < emitted[:, None], padded_ids,
                         torch.full_like(padded_ids, -1))
    tokens = torch.where(positions == emitted[:, None], final, tokens)
    return (tokens.to(torch.int32), accepted_token_num.to(torch.int32),
            emitted.to(torch.int32))
