"""Anchor: the task's reference compiled by torch.compile (default mode, shapes specialized per
workload), the path that needs no kernel of one's own. Compiled on the first call, so that each
shape compiles once and importing the anchor costs nothing. The iteration loop unrolls (iters is
a small static integer); cdist and index_add_ stay library kernels, the elementwise steps fuse."""

import torch

from reference import run as reference_run

_compiled = None


def run(x, c0, iters):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference_run, dynamic=False)
    return _compiled(x, c0, iters)
