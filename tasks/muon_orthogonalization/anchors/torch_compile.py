"""Anchor: torch.compile of the reference.

Mode "default": the map is five rounds of fp16 matrix products, which stay on cuBLAS, and
compiling fuses the normalization and the polynomial's scaling and sums around them. The
autotuning modes search GEMM templates at the first call, which must fit in the task's call
time limit; CUDA graphs are left out because the harness times the call itself and keeps its
outputs, which a graph would overwrite on its next replay. Shapes are static (dynamic=False):
the first call of each shape compiles, and every later call of that shape reuses it.
"""

import torch

from reference import run as reference_run

_compiled = None


def run(G, steps=5):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference_run, dynamic=False, mode="default")
    return _compiled(G, steps)
