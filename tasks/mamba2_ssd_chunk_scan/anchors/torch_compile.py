"""Anchor: the task's reference with its per-token step compiled by torch.compile (default mode,
shapes specialized per workload), the path that needs no kernel of one's own.

Compiling the whole reference would unroll its loop over seq_len tokens (up to 32768) into one
graph, which does not compile in any useful time; compiling the loop body instead lets Inductor
fuse the decay, the outer-product update and the output contraction of a token into a few
kernels, while the loop and the whole-sequence preparation stay as the reference writes them.
Compiled on the first call, so that each shape compiles once and importing the anchor costs
nothing."""

import torch

from reference import run as reference_run
from reference import step as reference_step

_compiled_step = None


def run(x, dt, A, B, C, D, dt_bias, initial_states):
    global _compiled_step
    if _compiled_step is None:
        _compiled_step = torch.compile(reference_step, dynamic=False)
    return reference_run(x, dt, A, B, C, D, dt_bias, initial_states, step_fn=_compiled_step)
