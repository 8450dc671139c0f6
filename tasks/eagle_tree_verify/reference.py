"""Eager PyTorch definition of EAGLE tree verification, and the exact target of the final draw.

run(...) is what a first implementation looks like: the target's argmax (greedy) or softmax
(sampling) over the whole vocabulary for every node of every request, then the walk down the
tree, one depth at a time for all requests at once, trying up to `topk` siblings per depth with
tensor operations (no host round trip, so the call can be captured in a CUDA graph), and at the
end an inverse-CDF draw over the residual distribution with one uniform per request from a
counter-based hash of (seed, request).

The walk, for request b (node 0 is the root):
    u = 0
    repeat:
        try the children of u in sibling order (first_child[b, u], then next_sibling[b, c], ...):
            greedy:   accept child c  <=>  candidates[b, c] == argmax_j logits[b, u, j]
                      (the lowest index among equal maxima)
            sampling: P = softmax(logits[b, u] / temperature[b]); acc += P[candidates[b, c]]
                      accept child c  <=>  coins[b, u] <= acc / threshold_acc
                                           or P[candidates[b, c]] >= threshold_single
        if a child c is accepted: append it to the path, u = c; otherwise stop.
    next token at the last node u:
        greedy:   argmax_j logits[b, u, j]
        sampling: a draw from P with the tokens of every child of u set to zero, renormalized.
target_probabilities(...) gives that final distribution (one-hot in greedy mode); only the
reference worker calls it.
"""

import torch

_MASK64 = (1 << 64) - 1


def _int64(value):
    """A 64-bit constant as the signed int64 with the same bits."""
    value &= _MASK64
    return value - (1 << 64) if value >= 1 << 63 else value


def _shift_right(x, bits):
    """Logical right shift of int64 bits (torch's >> is arithmetic)."""
    return (x >> bits) & ((1 << (64 - bits)) - 1)


def _uniforms(seed, rows, device):
    """One uniform in [0, 1) per request: the SplitMix64 finalizer of seed + (row + 1) * golden."""
    golden = _int64(0x9E3779B97F4A7C15)
    z = torch.arange(1, rows + 1, device=device, dtype=torch.int64) * golden + _int64(seed)
    z = (z ^ _shift_right(z, 30)) * _int64(0xBF58476D1CE4E5B9)
    z = (z ^ _shift_right(z, 27)) * _int64(0x94D049BB133111EB)
    z = z ^ _shift_right(z, 31)
    return _shift_right(z, 11).double() * 2.0 ** -53


def walk(logits, candidates, first_child, next_sibling, coins, temperature,
         max_depth, topk, greedy, threshold_single, threshold_acc):
    """The accepted path: (accept_index [B, max_depth + 1] int32, accept_len [B] int32,
    last node [B] int64, per-node target: argmax [B, N] int64 or probabilities [B, N, V])."""
    batch, num_nodes, vocab = logits.shape
    device = logits.device
    rows = torch.arange(batch, device=device)
    if greedy:
        target = torch.argmax(logits, dim=-1)                      # [B, N]
    else:
        target = torch.softmax(logits.float() / temperature.float()[:, None, None], dim=-1)
    first_child = first_child.long()
    next_sibling = next_sibling.long()
    candidates = candidates.long()

    node = torch.zeros(batch, dtype=torch.int64, device=device)
    active = torch.ones(batch, dtype=torch.bool, device=device)
    accept_index = torch.full((batch, max_depth + 1), -1, dtype=torch.int64, device=device)
    accept_index[:, 0] = 0
    accept_len = torch.zeros(batch, dtype=torch.int64, device=device)
    for depth in range(max_depth):
        child = first_child[rows, node]
        searching = active & (child >= 0)
        chosen = torch.full_like(node, -1)
        acc = torch.zeros(batch, dtype=torch.float32, device=device)
        coin = coins[rows, node]
        for _ in range(topk):
            c = child.clamp(min=0)
            token = candidates[rows, c]
            if greedy:
                ok = token == target[rows, node]
            else:
                p = target[rows, node, token]
                acc = acc + torch.where(searching, p, torch.zeros_like(p))
                ok = (coin <= acc / threshold_acc) | (p >= threshold_single)
            hit = searching & ok
            chosen = torch.where(hit, c, chosen)
            sibling = next_sibling[rows, c]
            searching = searching & ~ok & (sibling >= 0)
            child = torch.where(searching, sibling, child)
        moved = chosen >= 0
        accept_index[:, depth + 1] = chosen
        accept_len = accept_len + moved.long()
        node = torch.where(moved, chosen, node)
        active = moved
    return accept_index.int(), accept_len.int(), node, target


def _residual(logits, candidates, first_child, next_sibling, temperature, node, topk, dtype):
    """The last node's target distribution with its children's tokens removed (not normalized)."""
    batch = logits.shape[0]
    rows = torch.arange(batch, device=logits.device)
    probs = torch.softmax(logits[rows, node].to(dtype) / temperature.to(dtype)[:, None], dim=-1)
    child = first_child.long()[rows, node]
    for _ in range(topk):
        valid = child >= 0
        c = child.clamp(min=0)
        token = candidates.long()[rows, c]
        keep = torch.where(valid, torch.zeros_like(probs[:, 0]), probs[rows, token])
        probs[rows, token] = keep
        child = torch.where(valid, next_sibling.long()[rows, c], child)
    return probs


def verify(logits, candidates, first_child, next_sibling, coins, temperature,
           max_depth, topk, greedy, threshold_single, threshold_acc):
    """Everything but the seed: (accept_index, accept_len, the greedy next token or the
    residual's cumulative distribution [B, V] in float64)."""
    accept_index, accept_len, node, target = walk(
        logits, candidates, first_child, next_sibling, coins, temperature,
        max_depth, topk, greedy, threshold_single, threshold_acc)
    rows = torch.arange(logits.shape[0], device=logits.device)
    if greedy:
        return accept_index, accept_len, target[rows, node]
    residual = _residual(logits, candidates, first_child, next_sibling, temperature, node, topk,
                         torch.float32)
    return accept_index, accept_len, torch.cumsum(residual.double(), dim=-1)


def draw(cdf, seed):
    """Inverse-CDF draw: the first token whose cumulative mass exceeds u * total."""
    threshold = _uniforms(int(seed), cdf.shape[0], cdf.device)[:, None] * cdf[:, -1:]
    pick = torch.searchsorted(cdf, threshold, right=True).clamp_(max=cdf.shape[-1] - 1)
    return pick.squeeze(1)


def run(logits, candidates, first_child, next_sibling, coins, temperature,
        max_depth, topk, greedy, threshold_single, threshold_acc, seed):
    accept_index, accept_len, last = verify(
        logits, candidates, first_child, next_sibling, coins, temperature,
        max_depth, topk, greedy, threshold_single, threshold_acc)
    if greedy:
        return accept_index, accept_len, last
    return accept_index, accept_len, draw(last, seed)


def target_probabilities(logits, candidates, first_child, next_sibling, coins, temperature,
                         max_depth, topk, greedy, threshold_single, threshold_acc, seed):
    """(probabilities, support), both [batch, vocab], of next_token: float32 and uint8 0/1.

    Greedy: one-hot at the last node's argmax. Sampling: the last node's softmax, computed in
    float64, with the tokens of its children removed and renormalized; every token of positive
    probability is in the support."""
    _, _, node, target = walk(logits, candidates, first_child, next_sibling, coins, temperature,
                              max_depth, topk, greedy, threshold_single, threshold_acc)
    batch, _, vocab = logits.shape
    rows = torch.arange(batch, device=logits.device)
    if greedy:
        probs = torch.zeros((batch, vocab), dtype=torch.float64, device=logits.device)
        probs[rows, target[rows, node]] = 1.0
    else:
        probs = _residual(logits, candidates, first_child, next_sibling, temperature, node, topk,
                          torch.float64)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs.float(), (probs > 0).to(torch.uint8)
