"""Anchor: the task's reference compiled by torch.compile (default mode, shapes specialized per
workload), the comparison that fused linear cross-entropy libraries publish. Compiled on the
first call, so that each shape compiles once and importing the anchor costs nothing."""

import torch

from reference import run as reference_run

_compiled = None


def run(hidden, weight, targets):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference_run, dynamic=False)
    return _compiled(hidden, weight, targets)
