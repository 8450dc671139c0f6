"""Anchor: the chunked library path, in the manner of Liger-Kernel's fused linear cross-entropy,
with PyTorch's own operators (Liger and Cut Cross-Entropy are not known to be on the device).

Token rows are processed in chunks of next_power_of_2(ceil(N / ceil(V / H))) rows, the chunk
size rule Liger uses, so that one chunk's logits are about as large as the hidden states. Per
chunk: bf16 logits from one library product, an fp32 softmax, the logit gradient
(softmax - one-hot) / count rounded to bf16, and two library products for the chunk's
grad_hidden and its share of grad_weight, which is summed in fp32 across chunks and rounded to
bf16 once. The count of kept positions stays on the device.
"""

import math

import torch

IGNORE_INDEX = -100


def run(hidden, weight, targets):
    n, h = hidden.shape
    v = weight.shape[0]
    chunk = 1 << max(0, math.ceil(math.log2(math.ceil(n / math.ceil(v / h)))))
    valid_all = targets != IGNORE_INDEX
    count = valid_all.sum().to(torch.float32)
    loss_sum = torch.zeros((), dtype=torch.float32, device=hidden.device)
    grad_hidden = torch.empty_like(hidden)
    grad_weight = torch.zeros((v, h), dtype=torch.float32, device=hidden.device)
    for start in range(0, n, chunk):
        rows = slice(start, min(start + chunk, n))
        h_chunk = hidden[rows]
        y = targets[rows]
        valid = valid_all[rows]
        logits = (h_chunk @ weight.t()).float()
        lse = torch.logsumexp(logits, dim=1)
        safe = torch.where(valid, y, torch.zeros_like(y))
        target_logit = logits.gather(1, safe[:, None])[:, 0]
        loss_sum += ((lse - target_logit) * valid).sum()
        grad = torch.exp(logits.sub_(lse[:, None]))
        grad.scatter_add_(1, safe[:, None], -torch.ones_like(lse[:, None]))
        grad.mul_((valid.to(torch.float32) / count)[:, None])
        grad16 = grad.to(hidden.dtype)
        grad_hidden[rows] = grad16 @ weight
        grad_weight += (grad16.t() @ h_chunk).float()
    return loss_sum / count, grad_hidden, grad_weight.to(weight.dtype)
