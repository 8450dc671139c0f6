"""Anchor: torch.topk over the scores, as inference code writes the indexer when no fused kernel
is at hand: the reference's scores (gathered keys, dequantized, einsum over the heads, ReLU, the
weighted head sum, -inf outside the range), then one torch.topk per row and a sort of the k
selected positions into the task's ascending order.

torch.topk promises nothing about which of several equal values it returns, and the task's inputs
do hold exact ties, so the selection runs on a composite int64 key instead of the float: the
score's bits mapped to an unsigned integer in float order (-0 taken as +0) in the high bits and
(2^31 - 1 - position) in the low 31 bits. The keys are distinct, their order is the score order
with the lower position first among equal scores, and torch.topk of the keys is the task's exact
selection."""

import torch

import reference

_LOW = 2**31


def ordered_score_keys(scores):
    """int64 keys in [0, 2^32) whose order is the float order of float32 scores."""
    scores = torch.where(scores == 0, torch.zeros_like(scores), scores)
    bits = scores.contiguous().view(torch.int32).long() & 0xFFFFFFFF
    negative = bits >= 2**31
    return torch.where(negative, 0xFFFFFFFF - bits, bits + 2**31)


def select_rows(q_rows, w_rows, pages, ks_rows, ke_rows, k_cache, k_scale, table, topk):
    n, heads, head_dim = q_rows.shape
    page_size = k_cache.shape[1]
    width = pages.shape[1] * page_size
    keep = min(topk, width)
    positions = torch.arange(width, device=q_rows.device)

    codes = k_cache[pages].reshape(n, width, head_dim)
    keys = table[codes.long()] * k_scale[pages].reshape(n, width, 1)
    queries = table[q_rows.long()]
    dots = torch.einsum("nhd,nwd->nhw", queries, keys)
    scores = (torch.relu(dots) * w_rows[:, :, None]).sum(dim=1)
    inside = (positions[None, :] >= ks_rows[:, None].long()) & \
             (positions[None, :] < ke_rows[:, None].long())
    scores = scores.masked_fill(~inside, float("-inf"))

    keys64 = ordered_score_keys(scores) * _LOW + (_LOW - 1 - positions[None, :])
    best = torch.topk(keys64, keep, dim=1).indices
    valid = torch.gather(inside, 1, best)
    chosen = torch.where(valid, best, torch.full_like(best, width))
    chosen = torch.sort(chosen, dim=1).values
    chosen = torch.where(chosen < width, chosen, torch.full_like(chosen, -1))
    if keep < topk:
        pad = torch.full((n, topk - keep), -1, dtype=chosen.dtype, device=chosen.device)
        chosen = torch.cat([chosen, pad], dim=1)
    return chosen.to(torch.int32)


def run(q, k_cache, k_scale, weights, block_table, query_req, ks, ke, topk):
    return reference.run_chunks(select_rows, q, k_cache, k_scale, weights, block_table, query_req,
                                ks, ke, topk)
