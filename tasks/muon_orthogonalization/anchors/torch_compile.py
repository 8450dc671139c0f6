"""Anchor: torch.compile of the reference.

Mode "max-autotune-no-cudagraphs": the map is five rounds of fp16 matrix products, and choosing
the fastest GEMM for each shape is what compiling can add to the eager reference. CUDA graphs
are left out because the harness times the call itself and keeps its outputs, which a graph
would overwrite on its next replay. Shapes are static (dynamic=False): the first call of each
shape compiles, and every later call of that shape reuses it.
"""

import torch

from reference import run as reference_run

_compiled = None


def run(G, steps=5):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference_run, dynamic=False, mode="max-autotune-no-cudagraphs")
    return _compiled(G, steps)
