"""Anchor: the same verification written with PyTorch operators the way a serving engine's
fallback path does it, touching only the row that is drawn from.

All tests at once give the first failed position j per request; the target row j and the
drafter row j (zero at the bonus position) are gathered into [batch, vocab] tensors, and one
residual, its integer weights, one cumulative sum and one binary search give the drawn token.
It reads the two needed rows plus a few [batch, vocab] intermediates, instead of the
reference's residual at every position. PyTorch has no fused speculative-sampling operator;
the serving libraries' kernels (FlashInfer's chain speculative sampling, and its port in
SGLang's kernel package) are not installed on the device, so this is the library path that
exists there.
"""

import torch

WEIGHT_SCALE = 2.0 ** 48


def run(draft_probs, draft_token_ids, target_probs, uniforms):
    batch, n_draft, vocab = draft_probs.shape
    device = draft_probs.device
    ids = draft_token_ids.to(torch.int64)
    rows = torch.arange(batch, device=device)

    p_at = torch.gather(target_probs[:, :n_draft], 2, ids[:, :, None]).squeeze(2)
    q_at = torch.gather(draft_probs, 2, ids[:, :, None]).squeeze(2)
    passed = uniforms[:, :n_draft] * q_at.to(torch.float64) < p_at.to(torch.float64)
    emitted = torch.cumprod(passed.to(torch.int64), dim=1).sum(dim=1)

    target_row = target_probs[rows, emitted]
    draft_row = draft_probs[rows, emitted.clamp(max=n_draft - 1)]
    draft_row = torch.where((emitted < n_draft)[:, None], draft_row, torch.zeros_like(draft_row))
    weights = (torch.clamp(target_row - draft_row, min=0.0) * WEIGHT_SCALE).to(torch.int64)
    empty = weights.sum(dim=1, keepdim=True) == 0
    weights = torch.where(empty, (target_row * WEIGHT_SCALE).to(torch.int64), weights)
    cdf = torch.cumsum(weights, dim=1)
    total = cdf[:, -1:]
    threshold = torch.floor(uniforms[:, n_draft:] * total.to(torch.float64)).to(torch.int64)
    threshold = torch.minimum(threshold, total - 1)
    drawn = torch.searchsorted(cdf, threshold, right=True)

    positions = torch.arange(n_draft + 1, device=device)[None, :]
    padded_ids = torch.cat([ids, torch.full((batch, 1), -1, dtype=torch.int64, device=device)],
                           dim=1)
    tokens = torch.where(positions < emitted[:, None], padded_ids,
                         torch.full_like(padded_ids, -1))
    tokens = torch.where(positions == emitted[:, None], drawn, tokens)
    return (tokens.to(torch.int32), passed.sum(dim=1).to(torch.int32), emitted.to(torch.int32))
