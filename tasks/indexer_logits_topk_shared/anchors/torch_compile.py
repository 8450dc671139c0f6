"""Anchor: the task's reference compiled by torch.compile (default mode, shapes specialized per
workload), the path that needs no kernel of one's own. The reference's loop over chunks of queries
stays in Python and the per-chunk scoring and selection (`reference.select_rows`: gather,
dequantize, einsum, ReLU, weighted head sum, mask, stable sorts) is what is compiled, so the graph
is one chunk deep and compiles once per chunk shape (at most two per workload). Compiled on the
first call, so importing the anchor costs nothing."""

import torch

import reference

_compiled = None


def run(q, k_cache, k_scale, weights, block_table, query_req, ks, ke, topk):
    global _compiled
    if _compiled is None:
        _compiled = torch.compile(reference.select_rows, dynamic=False)
    return reference.run_chunks(_compiled, q, k_cache, k_scale, weights, block_table, query_req,
                                ks, ke, topk)
