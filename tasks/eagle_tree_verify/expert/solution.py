"""EAGLE tree verification that reads only the rows on the accepted path.

The walk is a chain of at most max_depth + 1 decisions, and each decision needs one row of the
target logits: the row of the node whose children are being tried. So the call is one launch per
depth level (after a small init launch). At level d, every request still walking splits its
current node's row over SPLITS programs; each program reduces its slice in one pass (greedy: the
max and its lowest index; sampling: the online max and sum of exponentials, plus an exponential
race over the slice's tokens that are not children of the node, which is the final draw should
the walk stop here). The last program of a request to finish (an atomic ticket per request and
level) merges the SPLITS partials, tries the node's children in sibling order against the
argmax or the coin, and either records the accepted child as the request's next node or writes
the next token and retires the request. Requests that have stopped skip later levels. Nothing
leaves the device; grids depend only on shapes and the static arguments.
"""

import torch
import triton
import triton.language as tl

BLOCK = 4096
NUM_WARPS = 8
MAX_SPLITS = 64
INT_MAX = 2147483647
_BIG = tl.constexpr(2147483647)   # the same value, visible inside kernels
_MASK64 = (1 << 64) - 1


def _seed_key(seed):
    """A 31-bit key from the 64-bit seed (SplitMix64 finalizer), passed to the kernels."""
    z = (int(seed) + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    z ^= z >> 31
    return z >> 33


@triton.jit
def _fmix32(h):
    """murmur3's 32-bit finalizer on uint32 values."""
    h = h ^ (h >> 16)
    h = h * 0x85EBCA6B
    h = h ^ (h >> 13)
    h = h * 0xC2B2AE35
    h = h ^ (h >> 16)
    return h


@triton.jit
def _init_kernel(cur_ptr, active_ptr, counter_ptr, accept_index_ptr, accept_len_ptr,
                 next_token_ptr, batch, COLS: tl.constexpr, COLS_P2: tl.constexpr):
    b = tl.program_id(0)
    cols = tl.arange(0, COLS_P2)
    in_row = cols < COLS
    tl.store(accept_index_ptr + b * COLS + cols, tl.where(cols == 0, 0, -1), mask=in_row)
    tl.store(counter_ptr + cols * batch + b, cols * 0, mask=in_row)
    first = cols == 0
    tl.store(accept_len_ptr + b + cols * 0, cols * 0, mask=first)
    tl.store(cur_ptr + b + cols * 0, cols * 0, mask=first)
    tl.store(active_ptr + b + cols * 0, cols * 0 + 1, mask=first)
    tl.store(next_token_ptr + b + cols * 0, (cols * 0 - 1).to(tl.int64), mask=first)


@triton.jit(do_not_specialize=["depth", "seed_key"])
def _level_kernel(logits_ptr, cand_ptr, first_ptr, sib_ptr, coins_ptr, temp_ptr,
                  cur_ptr, active_ptr, counter_ptr, part_f_ptr, part_i_ptr,
                  accept_index_ptr, accept_len_ptr, next_token_ptr,
                  depth, max_depth, batch, num_nodes, vocab, chunk, seed_key,
                  threshold_single, threshold_acc,
                  SPLITS: tl.constexpr, KMAX: tl.constexpr, GREEDY: tl.constexpr,
                  BLOCK: tl.constexpr):
    b = tl.program_id(0)
    s = tl.program_id(1)
    active = tl.load(active_ptr + b, volatile=True)
    if active != 0:
        node = tl.load(cur_ptr + b, volatile=True)
        tree = b * num_nodes
        row = logits_ptr + (tree + node).to(tl.int64) * vocab
        start = s * chunk
        end = tl.minimum(start + chunk, vocab)
        lane = tl.arange(0, BLOCK)
        kidx = tl.arange(0, KMAX)

        # The node's children tokens, in sibling order, -1 padded (at most topk <= KMAX).
        child_toks = tl.full([KMAX], -1, tl.int32)
        c = tl.load(first_ptr + tree + node)
        for k in tl.static_range(KMAX):
            has = c >= 0
            cc = tl.maximum(c, 0)
            tok = tl.load(cand_ptr + tree + cc)
            child_toks = tl.where((kidx == k) & has, tok, child_toks)
            nxt = tl.load(sib_ptr + tree + cc)
            c = tl.where(has, nxt, -1)

        slot = b * SPLITS + s
        if GREEDY:
            best_v = tl.full([BLOCK], float("-inf"), tl.float32)
            best_i = tl.full([BLOCK], _BIG, tl.int32)
            for off in range(start, end, BLOCK):
                idx = off + lane
                x = tl.load(row + idx, mask=idx < end, other=float("-inf"),
                            eviction_policy="evict_first")
                upd = x > best_v          # strict: a lane keeps its first (lowest) index
                best_v = tl.where(upd, x, best_v)
                best_i = tl.where(upd, idx, best_i)
            m = tl.max(best_v, axis=0)
            i = tl.min(tl.where(best_v == m, best_i, _BIG), axis=0)
            tl.store(part_f_ptr + slot * 3, m)
            tl.store(part_i_ptr + slot, i)
        else:
            inv_t = 1.0 / tl.load(temp_ptr + b)
            key_b = _fmix32(b.to(tl.uint32) * 0x27D4EB2F ^ seed_key.to(tl.uint32))
            # running max as an fp32 scalar tensor; finite, so exp(run_max - new_max) is safe
            run_max = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0) - 1e30
            sum_e = tl.zeros([BLOCK], tl.float32)
            race_t = tl.zeros([BLOCK], tl.float32)        # best exp(s - run_max) / E per lane,
            race_e = tl.full([BLOCK], 1.0, tl.float32)    # kept as the pair (t, E)
            race_i = tl.full([BLOCK], _BIG, tl.int32)
            for off in range(start, end, BLOCK):
                idx = off + lane
                valid = idx < end
                x = tl.load(row + idx, mask=valid, other=float("-inf"),
                            eviction_policy="evict_first")
                sv = x * inv_t
                new_max = tl.maximum(run_max, tl.max(sv, axis=0))
                scale = tl.exp(run_max - new_max)
                t = tl.exp(sv - new_max)                  # 0 where masked
                sum_e = sum_e * scale + t
                race_t = race_t * scale
                run_max = new_max
                # Exponential race: token j wins with probability t_j / sum(t) over the tokens
                # taking part, E_j = -log(U_j) with U_j from a hash of (seed, request, token).
                h = _fmix32(idx.to(tl.uint32) * 0x9E3779B1 ^ key_b)
                u = ((h >> 9).to(tl.float32) + 0.5) * (1.0 / 8388608.0)
                e = tl.maximum(-tl.log(u), 1e-30)
                # the children of the node never take part (they are all rejected when the
                # walk stops here); the compare runs only on tiles that hold a child token
                inside = (child_toks >= off) & (child_toks < off + BLOCK)
                t_race = t
                if tl.sum(inside.to(tl.int32), axis=0) > 0:
                    excluded = idx < 0
                    for k in tl.static_range(KMAX):
                        ck = tl.sum(tl.where(kidx == k, child_toks, 0), axis=0)
                        excluded = excluded | (idx == ck)
                    t_race = tl.where(excluded, 0.0, t)
                upd = t_race * race_e > race_t * e
                race_t = tl.where(upd, t_race, race_t)
                race_e = tl.where(upd, e, race_e)
                race_i = tl.where(upd, idx, race_i)
            ratio = race_t / race_e
            best = tl.max(ratio, axis=0)
            i = tl.min(tl.where(ratio == best, race_i, _BIG), axis=0)
            tl.store(part_f_ptr + slot * 3, run_max)
            tl.store(part_f_ptr + slot * 3 + 1, tl.sum(sum_e, axis=0))
            tl.store(part_f_ptr + slot * 3 + 2, tl.log(best) + run_max)   # -inf if none
            tl.store(part_i_ptr + slot, i)

        # The last of the request's SPLITS programs merges the partials and takes the decision.
        tl.debug_barrier()
        ticket = tl.atomic_add(counter_ptr + depth * batch + b, 1, sem="acq_rel", scope="gpu")
        if ticket == SPLITS - 1:
            sidx = b * SPLITS + tl.arange(0, SPLITS)
            pm = tl.load(part_f_ptr + sidx * 3, volatile=True)
            pi = tl.load(part_i_ptr + sidx, volatile=True)
            if GREEDY:
                top = tl.max(pm, axis=0)
                token = tl.min(tl.where(pm == top, pi, _BIG), axis=0)
            else:
                top = tl.max(pm, axis=0)
                ps = tl.load(part_f_ptr + sidx * 3 + 1, volatile=True)
                pk = tl.load(part_f_ptr + sidx * 3 + 2, volatile=True)
                z = tl.sum(ps * tl.exp(pm - top), axis=0)
                best_key = tl.max(pk, axis=0)
                token = tl.min(tl.where(pk == best_key, pi, _BIG), axis=0)
                coin = tl.load(coins_ptr + tree + node)
                acc = 0.0

            # Try the children in sibling order.
            c = tl.load(first_ptr + tree + node)
            chosen = c * 0 - 1                       # int32 scalar tensor: no child accepted yet
            for k in tl.static_range(KMAX):
                searching = (c >= 0) & (chosen < 0)
                cc = tl.maximum(c, 0)
                tok_c = tl.load(cand_ptr + tree + cc)
                if GREEDY:
                    ok = tok_c == token
                else:
                    p = tl.exp(tl.load(row + tok_c) * inv_t - top) / z
                    acc = acc + tl.where(searching, p, 0.0)
                    ok = (coin <= acc / threshold_acc) | (p >= threshold_single)
                chosen = tl.where(searching & ok, cc, chosen)
                nxt = tl.load(sib_ptr + tree + cc)
                c = tl.where(searching, tl.where(ok, -1, nxt), -1)

            if (chosen >= 0) & (depth < max_depth):
                tl.store(accept_index_ptr + b * (max_depth + 1) + depth + 1, chosen)
                tl.store(accept_len_ptr + b, depth + 1)
                tl.store(cur_ptr + b, chosen)
            else:
                tl.store(next_token_ptr + b, token.to(tl.int64))
                tl.store(active_ptr + b, 0)


def run(logits, candidates, first_child, next_sibling, coins, temperature,
        max_depth, topk, greedy, threshold_single, threshold_acc, seed):
    batch, num_nodes, vocab = logits.shape
    assert logits.dtype == torch.float32 and logits.is_contiguous()
    for t in (candidates, first_child, next_sibling):
        assert t.dtype == torch.int32 and t.is_contiguous() and tuple(t.shape) == (batch, num_nodes)
    assert coins.dtype == torch.float32 and coins.is_contiguous()
    assert temperature.dtype == torch.float32 and tuple(temperature.shape) == (batch,)
    assert vocab < INT_MAX - BLOCK
    device = logits.device
    max_depth, topk, greedy = int(max_depth), int(topk), int(greedy)

    num_sms = torch.cuda.get_device_properties(device).multi_processor_count
    splits = triton.next_power_of_2(triton.cdiv(2 * num_sms, batch))
    splits = max(1, min(splits, MAX_SPLITS, triton.next_power_of_2(triton.cdiv(vocab, BLOCK))))
    chunk = triton.cdiv(triton.cdiv(vocab, splits), BLOCK) * BLOCK
    kmax = max(2, triton.next_power_of_2(topk))
    cols = max_depth + 1

    accept_index = torch.empty((batch, cols), dtype=torch.int32, device=device)
    accept_len = torch.empty((batch,), dtype=torch.int32, device=device)
    next_token = torch.empty((batch,), dtype=torch.int64, device=device)
    cur = torch.empty((batch,), dtype=torch.int32, device=device)
    active = torch.empty((batch,), dtype=torch.int32, device=device)
    counters = torch.empty((cols * batch,), dtype=torch.int32, device=device)
    part_f = torch.empty((batch * splits * 3,), dtype=torch.float32, device=device)
    part_i = torch.empty((batch * splits,), dtype=torch.int32, device=device)

    _init_kernel[(batch,)](cur, active, counters, accept_index, accept_len, next_token, batch,
                           COLS=cols, COLS_P2=triton.next_power_of_2(cols), num_warps=1)
    key = _seed_key(seed)
    for depth in range(max_depth + 1):
        _level_kernel[(batch, splits)](
            logits, candidates, first_child, next_sibling, coins, temperature,
            cur, active, counters, part_f, part_i, accept_index, accept_len, next_token,
            depth, max_depth, batch, num_nodes, vocab, chunk, key,
            float(threshold_single), float(threshold_acc),
            SPLITS=splits, KMAX=kmax, GREEDY=bool(greedy), BLOCK=BLOCK, num_warps=NUM_WARPS)
    return accept_index, accept_len, next_token
