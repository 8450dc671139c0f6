"""Anchor: the task's reference compiled by torch.compile (default mode, shapes specialized per
workload), the path that needs no kernel of one's own. The reference's Python loop over the
draft positions (at most five here) unrolls into one graph; inductor fuses the elementwise work
of every position and keeps the integer cumulative sums and binary searches. Compiled on the
first call, so that each shape compiles once and importing the anchor costs nothing. CUDA graphs
are left to the harness, which captures the call itself."""

import torch

from reference import run as reference_run

_compiled = None


def run(draft_probs, draft_token_ids, target_probs, uniforms):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference_run, dynamic=False, mode="default")
    return _compiled(draft_probs, draft_token_ids, target_probs, uniforms)
