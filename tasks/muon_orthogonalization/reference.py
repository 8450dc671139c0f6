"""Eager PyTorch definition of the five-step polynomial orthogonalization map."""

import torch

# (a_k, b_k, c_k) for k = 0..4, applied in this order.
COEFFICIENTS = (
    (7.892582874424408, -20.38301394587957, 13.555306149406924),
    (3.911484868135431, -2.5464635929060884, 0.4268988319673074),
    (3.760657955697423, -2.512819018216563, 0.4323647349070073),
    (3.160399673686287, -2.149649518898498, 0.3996366907664389),
    (2.1910971618617303, -1.441662010214663, 0.328146487623155),
)
NORM_EPS = 1e-7


def run(G, steps=5):
    if G.ndim < 2:
        raise ValueError("G needs at least two dimensions; the last two form each matrix")
    if steps != 5:
        raise ValueError(f"steps must be 5 for this operator, got {steps}")

    # Per-matrix Frobenius normalization in fp32, then the fp16 starting iterate.
    g32 = G.to(torch.float32)
    fro = torch.linalg.vector_norm(g32, ord=2, dim=(-2, -1), keepdim=True)
    X = (g32 / (fro + NORM_EPS)).to(torch.float16)

    for a, b, c in COEFFICIENTS:
        gram = X @ X.transpose(-2, -1)            # M x M, fp16
        poly = b * gram + c * (gram @ gram)       # b A + c A^2, fp16
        X = a * X + poly @ X                      # next fp16 iterate

    return X.to(G.dtype)
