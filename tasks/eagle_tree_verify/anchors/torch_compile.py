"""Anchor: the task's reference compiled by torch.compile (default mode, shapes specialized per
workload), the path that needs no kernel of one's own. The reference's loops run over the static
max_depth and topk only, so everything but the final draw traces into one graph. The draw (a
hash of the seed and a search in the residual's cumulative distribution) stays eager: the seed is
a Python int that the fit test changes on every call, and compiling it in would recompile per
seed. Compiled on the first call, so that each shape compiles once and importing the anchor
costs nothing."""

import torch

from reference import draw, verify

_compiled = None


def run(logits, candidates, first_child, next_sibling, coins, temperature,
        max_depth, topk, greedy, threshold_single, threshold_acc, seed):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(verify, dynamic=False)
    accept_index, accept_len, last = _compiled(
        logits, candidates, first_child, next_sibling, coins, temperature,
        max_depth, topk, greedy, threshold_single, threshold_acc)
    if greedy:
        return accept_index, accept_len, last
    return accept_index, accept_len, draw(last, seed)
