"""LM head plus cross-entropy, forward and backward, written the direct way.

The logits of every token over the whole vocabulary come from one bf16 matrix product (fp32
accumulation, bf16 result, as the model's linear layer computes them), are cast to fp32 and
fed to the library cross-entropy with ignore index -100 and the mean over the kept tokens;
autograd then produces the gradients of the mean loss with respect to the hidden states and
the output embedding.
"""

import torch
import torch.nn.functional as F

IGNORE_INDEX = -100


def run(hidden, weight, targets):
    with torch.enable_grad():
        hidden_leaf = hidden.detach().requires_grad_(True)
        weight_leaf = weight.detach().requires_grad_(True)
        logits = hidden_leaf @ weight_leaf.t()
        loss = F.cross_entropy(logits.float(), targets, ignore_index=IGNORE_INDEX,
                               reduction="mean")
        grad_hidden, grad_weight = torch.autograd.grad(loss, (hidden_leaf, weight_leaf))
    return loss.detach(), grad_hidden, grad_weight
