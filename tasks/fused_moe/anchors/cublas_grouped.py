"""Anchor: the MoE block on cuBLAS through PyTorch, as a user without a fused MoE kernel writes it.

The routed (token, choice) slots are sorted by expert and their tokens gathered; the gate/up and
the down projections run as one grouped GEMM (torch._grouped_mm) when this torch has it and it
accepts the shapes on this device, else as one torch.mm per expert (cuBLAS), which needs the
per-expert counts on the host. SiLU-and-multiply, the routing weights and the sum over each
token's choices are PyTorch operators. Which path ran, and why, is printed once.
"""

import sys

import torch
import torch.nn.functional as F

_grouped = None  # None: not tried yet; then True, or False after the reason was printed


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


def _projections(a, w, counts, offsets):
    global _grouped
    if _grouped is None:
        if not hasattr(torch, "_grouped_mm"):
            _grouped = False
            _say("this torch has no torch._grouped_mm; one torch.mm per expert")
        else:
            try:
                result = torch._grouped_mm(a, w.transpose(1, 2), offs=offsets)
                _grouped = True
                _say("torch._grouped_mm")
                return result
            except RuntimeError as error:
                _grouped = False
                _say(f"torch._grouped_mm refused these shapes ({error}); one torch.mm per expert")
    if _grouped:
        return torch._grouped_mm(a, w.transpose(1, 2), offs=offsets)
    return _per_expert(a, w, counts)


def run(x, w1, w2, topk_ids, topk_weights):
    num_experts = w1.shape[0]
    inter = w1.shape[1] // 2
    top_k = topk_ids.shape[1]
    flat = topk_ids.reshape(-1).long()
    order = torch.argsort(flat, stable=True)
    tokens = order // top_k
    counts = torch.bincount(flat, minlength=num_experts)
    offsets = torch.cumsum(counts, 0).to(torch.int32)

    h = _projections(x.index_select(0, tokens), w1, counts, offsets)  # [T*k, 2I], by expert
    act = F.silu(h[:, :inter]) * h[:, inter:]
    out = _projections(act, w2, counts, offsets)                      # [T*k, H]
    weights = topk_weights.reshape(-1).index_select(0, order)
    y = torch.zeros(x.shape, dtype=torch.float32, device=x.device)
    y.index_add_(0, tokens, out.float() * weights[:, None])
    return y.to(x.dtype)
