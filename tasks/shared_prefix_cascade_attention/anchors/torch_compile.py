"""Anchor: torch.compile of the reference.

Mode "default": the reference is gathers, head repeats, a softmax and two batched products per
group of requests, which compilation fuses; there are no large GEMMs for autotuning to choose
between. CUDA graphs are left to the harness, which captures the call itself (the task is timed
with graphs). Shapes are static (dynamic=False): each shape compiles on its first call and is
reused afterwards, so importing the anchor costs nothing.
"""

import torch

from reference import run as reference_run

_compiled = None


def run(q, k_cache, v_cache, prefix_block_table, suffix_block_table, suffix_lens, prefix_len,
        sm_scale):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference_run, dynamic=False, mode="default")
    return _compiled(q, k_cache, v_cache, prefix_block_table, suffix_block_table, suffix_lens,
                     prefix_len, sm_scale)
