"""Anchor: the MoE block on cuBLAS through PyTorch, as a user without a fused MoE kernel writes it.

The routed (token, choice) slots are sorted by expert and their tokens gathered; the gate/up and
the down projections run as one grouped GEMM each (torch._grouped_mm) when this torch has it and
it accepts the workload's shapes on this device, else as one torch.mm per expert (cuBLAS), which
needs the per-expert counts on the host. SiLU-and-multiply, the routing weights and the sum over
each token's choices are PyTorch operators. Which path a shape takes, and why, is printed once.
"""

import sys

import torch
import torch.nn.functional as F

_grouped_by_shape = {}  # (w1 shape, w2 shape) -> whether torch._grouped_mm serves it


def _say(message):
    print("cublas_grouped: " + message, file=sys.stderr)


def _per_expert(a, w, counts):
    # One cuBLAS GEMM per expert over its contiguous rows of `a`: rows @ w[e].t().
    out = torch.empty((a.shape[0], w.shape[1]), dtype=a.dtype, device=a.device)
    start = 0
    for e, n in enumerate(counts.tolist()):
        if n:
            torch.mm(a[start:start + n], w[e].t(), out=out[start:start + n])
        start += n
    return out


def _forward(x, w1, w2, topk_ids, topk_weights, grouped):
    num_experts = w1.shape[0]
    inter = w1.shape[1] // 2
    top_k = topk_ids.shape[1]
    flat = topk_ids.reshape(-1).long()
    order = torch.argsort(flat, stable=True)
    tokens = order // top_k
    counts = torch.bincount(flat, minlength=num_experts)
    if grouped:
        offsets = torch.cumsum(counts, 0).to(torch.int32)
        project = lambda a, w: torch._grouped_mm(a, w.transpose(1, 2), offs=offsets)  # noqa: E731
    else:
        project = lambda a, w: _per_expert(a, w, counts)  # noqa: E731

    h = project(x.index_select(0, tokens), w1)  # [T*k, 2I], rows grouped by expert
    act = F.silu(h[:, :inter]) * h[:, inter:]
    out = project(act, w2)                      # [T*k, H]
    weights = topk_weights.reshape(-1).index_select(0, order)
    y = torch.zeros(x.shape, dtype=torch.float32, device=x.device)
    y.index_add_(0, tokens, out.float() * weights[:, None])
    return y.to(x.dtype)


def run(x, w1, w2, topk_ids, topk_weights):
    shape = (tuple(w1.shape), tuple(w2.shape))
    if shape not in _grouped_by_shape:
        if not hasattr(torch, "_grouped_mm"):
            _grouped_by_shape[shape] = False
            _say("this torch has no torch._grouped_mm; one torch.mm per expert")
        else:
            try:
                y = _forward(x, w1, w2, topk_ids, topk_weights, grouped=True)
                _grouped_by_shape[shape] = True
                _say(f"torch._grouped_mm for weights {shape}")
                return y
            except RuntimeError as error:
                _grouped_by_shape[shape] = False
                _say(f"torch._grouped_mm refused weights {shape} ({error}); one torch.mm per expert")
    return _forward(x, w1, w2, topk_ids, topk_weights, grouped=_grouped_by_shape[shape])
