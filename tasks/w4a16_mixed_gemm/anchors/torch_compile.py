"""Anchor: the task's reference compiled by torch.compile (default mode, shapes specialized per
workload), the path that needs no kernel of one's own. Inductor may fuse the unpacking, the
zero points and the scales into one elementwise kernel, but the bf16 weight still goes to memory
before the library GEMM. Compiled on the first call, so that each shape compiles once and
importing the anchor costs nothing."""

import torch

from reference import run as reference_run

_compiled = None


def run(x, qweight, scales, qzeros):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference_run, dynamic=False)
    return _compiled(x, qweight, scales, qzeros)
