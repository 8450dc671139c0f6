"""Anchor: the task's reference compiled by torch.compile (default mode, shapes specialized per
workload), the path that needs no kernel of one's own. The loop over the adapters is unrolled at
trace time (L iterations of the same small graph), so the first call per shape compiles for a
while; later calls replay the compiled code. Compiled on the first call, so that importing the
anchor costs nothing."""

import torch

from reference import run as reference_run

_compiled = None


def run(x, base, lora_a, lora_b, slice_offsets, lora_ids, scale):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference_run, dynamic=False)
    return _compiled(x, base, lora_a, lora_b, slice_offsets, lora_ids, scale)
