"""Baseline EAGLE tree verification: statistics of every node's row, then a walk per request.

Kernel 1 reduces every row of the [batch, num_nodes, vocab] logits, one program per node: the
argmax (greedy) or the max and the sum of exponentials of logits / temperature (sampling).
Kernel 2 runs one program per request: it walks the tree with the first-child and next-sibling
pointers, testing each child against the argmax or the coin, and then, in sampling mode, draws
the next token from the last node's row with a Gumbel-max pass that skips the node's children.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048
INT_MAX = 2147483647
_BIG = tl.constexpr(2147483647)   # the same value, visible inside kernels


@triton.jit
def _row_stats_kernel(logits_ptr, temp_ptr, argmax_ptr, max_ptr, sum_ptr, num_nodes, vocab,
                      GREEDY: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    row = logits_ptr + r.to(tl.int64) * vocab
    lane = tl.arange(0, BLOCK)
    if GREEDY:
        best_v = tl.full([BLOCK], float("-inf"), tl.float32)
        best_i = tl.full([BLOCK], _BIG, tl.int32)
        for off in range(0, vocab, BLOCK):
            idx = off + lane
            x = tl.load(row + idx, mask=idx < vocab, other=float("-inf"))
            upd = x > best_v
            best_v = tl.where(upd, x, best_v)
            best_i = tl.where(upd, idx, best_i)
        m = tl.max(best_v, axis=0)
        tl.store(argmax_ptr + r, tl.min(tl.where(best_v == m, best_i, _BIG), axis=0))
    else:
        inv_t = 1.0 / tl.load(temp_ptr + r // num_nodes)
        m_vec = tl.full([BLOCK], -1e30, tl.float32)
        for off in range(0, vocab, BLOCK):
            idx = off + lane
            x = tl.load(row + idx, mask=idx < vocab, other=float("-inf"))
            m_vec = tl.maximum(m_vec, x * inv_t)
        m = tl.max(m_vec, axis=0)
        acc = tl.zeros([BLOCK], tl.float32)
        for off in range(0, vocab, BLOCK):
            idx = off + lane
            x = tl.load(row + idx, mask=idx < vocab, other=float("-inf"))
            acc += tl.exp(x * inv_t - m)
        tl.store(max_ptr + r, m)
        tl.store(sum_ptr + r, tl.sum(acc, axis=0))


@triton.jit
def _walk_kernel(logits_ptr, cand_ptr, first_ptr, sib_ptr, coins_ptr, temp_ptr,
                 argmax_ptr, max_ptr, sum_ptr,
                 accept_index_ptr, accept_len_ptr, next_token_ptr,
                 num_nodes, vocab, seed, threshold_single, threshold_acc,
                 MAX_DEPTH: tl.constexpr, KMAX: tl.constexpr, GREEDY: tl.constexpr,
                 BLOCK: tl.constexpr):
    b = tl.program_id(0)
    tree = b * num_nodes
    inv_t = 1.0 / tl.load(temp_ptr + b)
    zero = b * 0                      # int32 scalar tensors for the loop state
    node = zero
    stopped = zero
    length = zero
    tl.store(accept_index_ptr + b * (MAX_DEPTH + 1), 0)
    for depth in tl.static_range(MAX_DEPTH):
        c = tl.load(first_ptr + tree + node)
        c = tl.where(stopped != 0, -1, c)
        chosen = c * 0 - 1
        target = tl.load(argmax_ptr + tree + node)
        m = tl.load(max_ptr + tree + node)
        z = tl.load(sum_ptr + tree + node)
        coin = tl.load(coins_ptr + tree + node)
        acc = 0.0
        for k in tl.static_range(KMAX):
            searching = (c >= 0) & (chosen < 0)
            cc = tl.maximum(c, 0)
            tok = tl.load(cand_ptr + tree + cc)
            if GREEDY:
                ok = tok == target
            else:
                logit = tl.load(logits_ptr + (tree + node).to(tl.int64) * vocab + tok)
                p = tl.exp(logit * inv_t - m) / z
                acc = acc + tl.where(searching, p, 0.0)
                ok = (coin <= acc / threshold_acc) | (p >= threshold_single)
            chosen = tl.where(searching & ok, cc, chosen)
            nxt = tl.load(sib_ptr + tree + cc)
            c = tl.where(searching, tl.where(ok, -1, nxt), -1)
        moved = chosen >= 0
        tl.store(accept_index_ptr + b * (MAX_DEPTH + 1) + depth + 1, tl.where(moved, chosen, -1))
        length = length + tl.where(moved, 1, 0)
        node = tl.where(moved, chosen, node)
        stopped = tl.where(moved, 0, 1)
    tl.store(accept_len_ptr + b, length)

    if GREEDY:
        tl.store(next_token_ptr + b, tl.load(argmax_ptr + tree + node).to(tl.int64))
    else:
        # The last node's children, all rejected, are left out of the draw.
        kidx = tl.arange(0, KMAX)
        child_toks = tl.full([KMAX], -1, tl.int32)
        c = tl.load(first_ptr + tree + node)
        for k in tl.static_range(KMAX):
            has = c >= 0
            cc = tl.maximum(c, 0)
            child_toks = tl.where((kidx == k) & has, tl.load(cand_ptr + tree + cc), child_toks)
            c = tl.where(has, tl.load(sib_ptr + tree + cc), -1)
        row = logits_ptr + (tree + node).to(tl.int64) * vocab
        lane = tl.arange(0, BLOCK)
        best_v = tl.full([BLOCK], float("-inf"), tl.float32)
        best_i = tl.full([BLOCK], _BIG, tl.int32)
        for off in range(0, vocab, BLOCK):
            idx = off + lane
            valid = idx < vocab
            x = tl.load(row + idx, mask=valid, other=float("-inf"))
            u = tl.rand(seed, b * vocab + idx)
            u = tl.maximum(u, 1e-12)
            g = -tl.log(tl.maximum(-tl.log(u), 1e-30))
            excluded = tl.sum((idx[:, None] == child_toks[None, :]).to(tl.int32), axis=1) > 0
            key = tl.where(valid & (excluded == 0), x * inv_t + g, float("-inf"))
            upd = key > best_v
            best_v = tl.where(upd, key, best_v)
            best_i = tl.where(upd, idx, best_i)
        top = tl.max(best_v, axis=0)
        token = tl.min(tl.where(best_v == top, best_i, _BIG), axis=0)
        tl.store(next_token_ptr + b, token.to(tl.int64))


def run(logits, candidates, first_child, next_sibling, coins, temperature,
        max_depth, topk, greedy, threshold_single, threshold_acc, seed):
    batch, num_nodes, vocab = logits.shape
    assert logits.dtype == torch.float32 and logits.is_contiguous()
    assert candidates.is_contiguous() and first_child.is_contiguous() and next_sibling.is_contiguous()
    device = logits.device
    greedy = bool(int(greedy))
    rows = batch * num_nodes
    argmax = torch.empty((rows,), dtype=torch.int32, device=device)
    row_max = torch.empty((rows,), dtype=torch.float32, device=device)
    row_sum = torch.empty((rows,), dtype=torch.float32, device=device)
    accept_index = torch.empty((batch, int(max_depth) + 1), dtype=torch.int32, device=device)
    accept_len = torch.empty((batch,), dtype=torch.int32, device=device)
    next_token = torch.empty((batch,), dtype=torch.int64, device=device)

    _row_stats_kernel[(rows,)](logits, temperature, argmax, row_max, row_sum, num_nodes, vocab,
                               GREEDY=greedy, BLOCK=BLOCK, num_warps=8)
    _walk_kernel[(batch,)](logits, candidates, first_child, next_sibling, coins, temperature,
                           argmax, row_max, row_sum, accept_index, accept_len, next_token,
                           num_nodes, vocab, int(seed) & 0x7FFFFFFF, float(threshold_single),
                           float(threshold_acc),
                           MAX_DEPTH=int(max_depth), KMAX=max(2, triton.next_power_of_2(int(topk))),
                           GREEDY=greedy, BLOCK=BLOCK, num_warps=8)
    return accept_index, accept_len, next_token
