"""Anchor: the task's reference compiled by torch.compile (default mode, shapes specialized per
workload), the path that needs no kernel of one's own. The reference updates logits in place;
torch.compile keeps that mutation. Compiled on the first call, so that each shape compiles once
and importing the anchor costs nothing."""

import torch

from reference import run as reference_run

_compiled = None


def run(logits, bitmask, indices):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference_run, dynamic=False)
    return _compiled(logits, bitmask, indices)
