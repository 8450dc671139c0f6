"""Anchor: torch.compile of the reference.

Mode "default": the reference's per-expert loop selects its tokens with nonzero, whose result
size depends on the routing, so compilation splits the loop into one graph per expert step and
the GEMMs stay on cuBLAS; autotuning would spend the call's time limit on shapes that change
with every routing. CUDA graphs are left to the harness, which keeps the call's outputs. Shapes
are static (dynamic=False): each shape compiles on its first call and is reused afterwards.
"""

import torch

from reference import run as reference_run

_compiled = None


def run(x, w1, w2, topk_ids, topk_weights):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference_run, dynamic=False, mode="default")
    return _compiled(x, w1, w2, topk_ids, topk_weights)
