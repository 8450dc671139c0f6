"""Anchor: the task's reference compiled by torch.compile (default mode, shapes specialized per
workload), the path that needs no kernel of one's own. The reference updates x_perm in place;
torch.compile keeps that mutation. Compiled on the first call, so that each shape compiles once
and importing the anchor costs nothing."""

import torch

from reference import run as reference_run

_compiled = None


def run(x, topk_ids, topk_weights, expert_out, x_perm, num_experts, align):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference_run, dynamic=False)
    return _compiled(x, topk_ids, topk_weights, expert_out, x_perm, num_experts, align)
