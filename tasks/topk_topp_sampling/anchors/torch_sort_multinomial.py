"""Anchor: top-k/top-p sampling with PyTorch operators, the way serving engines fall back to it.

The softmax of the scaled logits is sorted once; top-k and top-p become one value threshold per
row (the k-th largest probability, and the smallest probability of the prefix whose mass before
it is under top_p), taken on the same softmax, so ties are kept together as the task defines;
torch.multinomial then draws from the kept probabilities with a generator seeded by `seed`.
"""

import torch


def run(logits, top_k, top_p, temperature, seed):
    batch, vocab = logits.shape
    probs = torch.softmax(logits.float() / temperature.float()[:, None], dim=-1)
    sorted_probs, _ = torch.sort(probs, dim=-1, descending=True)

    k = top_k.long()
    k = torch.where((k <= 0) | (k > vocab), torch.full_like(k, vocab), k)
    kth = sorted_probs.gather(1, (k - 1)[:, None])
    mass_before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
    p = top_p.float()[:, None]
    in_prefix = (mass_before < p) | (p >= 1.0)
    last = in_prefix.sum(dim=-1, keepdim=True) - 1
    threshold = torch.maximum(kth, sorted_probs.gather(1, last))

    kept = torch.where(probs >= threshold, probs, torch.zeros_like(probs))
    generator = torch.Generator(device=logits.device)
    generator.manual_seed(int(seed))
    return torch.multinomial(kept, 1, generator=generator).squeeze(1)
