"""Eager PyTorch definition of top-k/top-p sampling, and the exact target distribution.

run(...) is the naive sampler: softmax, a full sort of every row, a cumulative sum, masks,
renormalization and an inverse-CDF draw with one uniform per row. The uniforms come from a
counter-based hash of (seed, row) in integer tensor arithmetic rather than a generator object,
so the whole call can be captured into a CUDA graph like any candidate's.
target_probabilities(...) is what the evaluator's distribution check compares samples with;
only the reference worker calls it.

Which tokens are kept (value based, so ties are kept or dropped together):
    probs = softmax(logits / temperature) per row
    keep token j  <=>  #{i : probs[i] > probs[j]} < top_k      (top_k <= 0 or >= vocab: no limit)
                   and  sum(probs[i] for probs[i] > probs[j]) < top_p   (top_p >= 1: no limit)
The sample is drawn from probs restricted to the kept tokens, renormalized. Both limits are
applied to the same softmax (not top-p after renormalizing the top-k set).
"""

import torch

# Kernels compute probabilities and masses in fp32, so a token whose keep decision is within
# rounding of a limit may fall either way. The support reported to the evaluator admits such
# borderline tokens; the probabilities themselves follow the exact float64 rule above.
SUPPORT_MASS_SLACK = 1e-4       # top-p: mass strictly above within top_p + slack
SUPPORT_RELATIVE_SLACK = 1e-4   # top-k: probability within this fraction of the k-th largest

_MASK64 = (1 << 64) - 1


def _int64(value):
    """A 64-bit constant as the signed int64 with the same bits."""
    value &= _MASK64
    return value - (1 << 64) if value >= 1 << 63 else value


def _shift_right(x, bits):
    """Logical right shift of int64 bits (torch's >> is arithmetic)."""
    return (x >> bits) & ((1 << (64 - bits)) - 1)


def _uniforms(seed, rows, device):
    """One uniform in [0, 1) per row: the SplitMix64 finalizer of seed + (row + 1) * golden."""
    golden = _int64(0x9E3779B97F4A7C15)
    z = torch.arange(1, rows + 1, device=device, dtype=torch.int64) * golden + _int64(seed)
    z = (z ^ _shift_right(z, 30)) * _int64(0xBF58476D1CE4E5B9)
    z = (z ^ _shift_right(z, 27)) * _int64(0x94D049BB133111EB)
    z = z ^ _shift_right(z, 31)
    return _shift_right(z, 11).double() * 2.0 ** -53


def _limits(top_k, top_p, vocab):
    k = top_k.long()
    k = torch.where((k <= 0) | (k > vocab), torch.full_like(k, vocab), k)
    return k, top_p.double()


def run(logits, top_k, top_p, temperature, seed):
    return sample(logits, top_k, top_p, temperature,
                  _uniforms(int(seed), logits.shape[0], logits.device))


def sample(logits, top_k, top_p, temperature, uniforms):
    """The draw of run(...) given one uniform per row."""
    vocab = logits.shape[1]
    probs = torch.softmax(logits.float() / temperature.float()[:, None], dim=-1)
    sorted_probs, order = torch.sort(probs, dim=-1, descending=True)

    k, p = _limits(top_k, top_p, vocab)
    positions = torch.arange(vocab, device=logits.device)[None, :]
    mass_before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
    keep_sorted = (positions < k[:, None]) & ((mass_before < p[:, None].float()) | (p[:, None] >= 1.0))
    # A tie with the last kept value is kept too (value-based rule).
    last = keep_sorted.sum(dim=-1, keepdim=True) - 1
    threshold = sorted_probs.gather(1, last)
    keep_sorted = keep_sorted | (sorted_probs >= threshold)

    kept = torch.where(keep_sorted, sorted_probs, torch.zeros_like(sorted_probs))
    cdf = torch.cumsum(kept.double(), dim=-1)
    threshold = uniforms[:, None] * cdf[:, -1:]
    # The first position whose cumulative mass exceeds the threshold: a kept token, drawn with
    # probability proportional to its mass.
    pick = torch.searchsorted(cdf, threshold, right=True).clamp_(max=vocab - 1)
    return order.gather(1, pick).squeeze(1)


def target_probabilities(logits, top_k, top_p, temperature, seed):
    """Returns (probabilities, support), both [batch, vocab].

    probabilities (float32) is the exact renormalized distribution, computed in float64;
    support (uint8, 0 or 1) marks every token a correct fp32 sampler may return: the kept tokens plus
    those whose keep decision is within rounding of a limit.
    """
    batch, vocab = logits.shape
    probs = torch.softmax(logits.double() / temperature.double()[:, None], dim=-1)
    sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
    k, p = _limits(top_k, top_p, vocab)

    # For each sorted position: how many tokens, and how much mass, lie strictly above its
    # value (the first position holding that value).
    descending = -sorted_probs
    first = torch.searchsorted(descending.contiguous(), descending.contiguous(), right=False)
    mass_before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
    mass_above = mass_before.gather(1, first)
    count_above = first

    no_p = (p >= 1.0)[:, None]
    keep = (count_above < k[:, None]) & (no_p | (mass_above < p[:, None]))

    kth_value = sorted_probs.gather(1, (k - 1)[:, None])
    near_k = sorted_probs >= kth_value * (1.0 - SUPPORT_RELATIVE_SLACK)
    near_p = no_p | (mass_above < p[:, None] + SUPPORT_MASS_SLACK)
    allowed = keep | (near_k & near_p)

    kept = torch.where(keep, sorted_probs, torch.zeros_like(sorted_probs))
    kept = kept / kept.sum(dim=-1, keepdim=True)

    probabilities = torch.zeros_like(kept).scatter_(1, order, kept).float()
    support = torch.zeros_like(allowed).scatter_(1, order, allowed)
    return probabilities, support.to(torch.uint8)
