"""Eager PyTorch definition of the routed MoE feed-forward block (SwiGLU experts)."""

import torch
import torch.nn.functional as F


def run(x, w1, w2, topk_ids, topk_weights):
    # x [T, H] bf16; w1 [E, 2I, H] (gate rows 0..I-1, then up rows I..2I-1); w2 [E, H, I];
    # topk_ids [T, k] int32; topk_weights [T, k] fp32.
    num_experts = w1.shape[0]
    inter = w1.shape[1] // 2
    y = torch.zeros(x.shape, dtype=torch.float32, device=x.device)

    for e in range(num_experts):
        # Which (token, slot) pairs were routed to expert e.
        token_idx, slot_idx = torch.nonzero(topk_ids == e, as_tuple=True)
        if token_idx.numel() == 0:
            continue
        x_e = x[token_idx]                                  # [n, H]
        h = x_e @ w1[e].t()                                 # [n, 2I]
        act = F.silu(h[:, :inter]) * h[:, inter:]           # [n, I]
        out = act @ w2[e].t()                               # [n, H]
        weight = topk_weights[token_idx, slot_idx]          # [n] fp32
        y.index_add_(0, token_idx, out.float() * weight[:, None])

    return y.to(x.dtype)
