"""Anchor: the reference with its per-token step compiled by torch.compile (default mode, shapes
specialized per workload), the path that needs no kernel of one's own.

Compiling the whole reference would make the compiler trace its loop of T steps (16384 to 32768
here) into one graph, which does not finish in any reasonable time; the loop body is where the
work is, so the step is compiled (its decay, state read, update, masking and output read fused
into a few kernels) and the reference's own loop calls it. Compiled on the first call, so that
each shape compiles once and importing the anchor costs nothing."""

import torch

import reference

_compiled_step = None


def run(q, k, v, g, beta, initial_state, cu_seqlens, scale):
    global _compiled_step
    if _compiled_step is None:
        _compiled_step = torch.compile(reference._step, dynamic=False)
    return reference.recurrence(_compiled_step, q, k, v, g, beta, initial_state, cu_seqlens,
                                scale)
