"""Anchor: the task's reference compiled by torch.compile (default mode, shapes specialized per
workload), the path that needs no kernel of one's own. Compiled on the first call, so that each
shape compiles once and importing the anchor costs nothing. The reference's loop over batches of
row blocks has a fixed trip count per shape, so it unrolls into one graph."""

import torch

from reference import run as reference_run

_compiled = None


def run(a, a_scale, b, b_scale, grouping):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference_run, dynamic=False)
    return _compiled(a, a_scale, b, b_scale, grouping)
