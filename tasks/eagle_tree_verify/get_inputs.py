"""Input generator for the EAGLE tree verification task.

Every request carries a draft tree built the way an EAGLE-2/3 drafter builds one: the root (the
last verified token) is expanded into `topk` children, then at every later step the `topk`
best-scoring nodes of the previous step are expanded into `topk` children each, up to `max_depth`
steps; the `num_nodes - 1` best-scoring candidates (cumulative draft log-probability) form the
tree, which is closed under parents because a child always scores below its parent. Nodes are
numbered by depth, then by generation order; children are chained in sibling order by draft score.

The target logits of each node put a few "head" tokens (the node's children and some other
tokens) above a Gaussian bulk over the whole vocabulary. How far each request's walk gets is set
here: accepted lengths are taken from the workload's `accept_lengths` list, one per request in a
seeded order, and the target of every node on that path favours the chosen child (greedy) or
gives it a coin interval (sampling), while the path's last node rejects all of its children. The
coins are drawn at least COIN_MARGIN away from every acceptance boundary, so the walk does not
depend on floating-point rounding. Every random value comes from generators seeded with
config["seed"], so two processes build identical inputs.
"""

import math

import torch

BULK_SCALE = 2.0
COIN_MARGIN = 1e-3
EXTRA_HEADS = 3
FIRST_CHILD_SHARE = 0.6     # how often the accepted child is the first of its siblings


def _uniform(gen, lo, hi):
    return lo + (hi - lo) * float(torch.rand((), generator=gen, dtype=torch.float64))


def _distinct_tokens(gen, count, vocab, avoid):
    tokens = []
    while len(tokens) < count:
        t = int(torch.randint(0, vocab, (), generator=gen))
        if t not in avoid and t not in tokens:
            tokens.append(t)
    return tokens


def _build_tree(gen, num_nodes, max_depth, topk, vocab):
    """One draft tree: (parent, depth, token) per node, node 0 the root, children by rank."""
    # candidate: [parent_candidate, depth, score, token, order]; candidate 0 is the root
    cands = [[-1, 0, 0.0, _distinct_tokens(gen, 1, vocab, ())[0], 0]]
    frontier = [0]
    for depth in range(1, max_depth + 1):
        new = []
        for parent in frontier:
            # draft probabilities of the parent's top-k tokens, strictly decreasing and < 1
            top = _uniform(gen, 0.3, 0.9)
            rest = torch.rand(topk, generator=gen, dtype=torch.float64).sort(descending=True).values
            probs = [top] + [float(r) * (1.0 - top) * 0.8 / topk + 1e-6 for r in rest[1:]]
            tokens = _distinct_tokens(gen, topk, vocab, ())
            for rank in range(topk):
                new.append(len(cands))
                cands.append([parent, depth, cands[parent][2] + math.log(probs[rank]),
                              tokens[rank], len(cands)])
        new.sort(key=lambda c: (-cands[c][2], c))
        frontier = new[:topk]
    # The best candidate of the last step and its ancestors are always kept, so the tree
    # reaches max_depth; the other nodes are the best-scoring remaining candidates.
    chain = []
    node = frontier[0]
    while node != 0:
        chain.append(node)
        node = cands[node][0]
    others = sorted((c for c in range(1, len(cands)) if c not in chain),
                    key=lambda c: (-cands[c][2], c))
    chosen = sorted([0] + chain + others[:num_nodes - 1 - len(chain)],
                    key=lambda c: (cands[c][1], c))
    position = {c: i for i, c in enumerate(chosen)}
    parent = [position[cands[c][0]] if c != 0 else -1 for c in chosen]
    depth = [cands[c][1] for c in chosen]
    token = [cands[c][3] for c in chosen]
    return parent, depth, token


def _children(parent):
    kids = [[] for _ in parent]
    for node, p in enumerate(parent):
        if p >= 0:
            kids[p].append(node)      # node order within a parent is its rank order
    return kids


def _heights(kids):
    height = [0] * len(kids)
    for node in reversed(range(len(kids))):
        for c in kids[node]:
            height[node] = max(height[node], height[c] + 1)
    return height


def _choose_path(gen, kids, height, length):
    path = [0]
    for step in range(length):
        remaining = length - step - 1
        eligible = [c for c in kids[path[-1]] if height[c] >= remaining]
        assert eligible, "the tree has no path of the requested length"
        if eligible[0] == kids[path[-1]][0] and float(torch.rand((), generator=gen)) < FIRST_CHILD_SHARE:
            path.append(eligible[0])
        else:
            path.append(eligible[int(torch.randint(0, len(eligible), (), generator=gen))])
    return path


def _head_probabilities(gen, role, child_tokens, accepted_rank, extra_tokens):
    """Target probabilities of a row's head tokens: {token: probability}, total below 1.

    role: "accept" (the walk accepts child accepted_rank), "end" (every child is rejected) or
    "free" (off the path)."""
    heads = {}
    if role == "accept":
        for rank, t in enumerate(child_tokens):
            heads[t] = _uniform(gen, 0.15, 0.6) if rank == accepted_rank else _uniform(gen, 0.005, 0.04)
        for t in extra_tokens:
            heads[t] = _uniform(gen, 0.005, 0.03)
    elif role == "end":
        for t in child_tokens:
            heads[t] = _uniform(gen, 0.005, 0.06)
        heads[extra_tokens[0]] = _uniform(gen, 0.2, 0.4)
        for t in extra_tokens[1:]:
            heads[t] = _uniform(gen, 0.005, 0.03)
    else:
        for t in child_tokens:
            heads[t] = _uniform(gen, 0.005, 0.08)
        for t in extra_tokens:
            heads[t] = _uniform(gen, 0.005, 0.1)
    return heads


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    batch = int(config["batch"])
    num_nodes = int(config["num_nodes"])
    vocab = int(config["vocab"])
    max_depth = int(config["max_depth"])
    topk = int(config["topk"])
    greedy = int(config["greedy"])
    temperature = float(config["temperature"])
    threshold_single = float(config["threshold_single"])
    threshold_acc = float(config["threshold_acc"])
    accept_lengths = [int(x) for x in config["accept_lengths"]]
    seed = int(config.get("seed", 0))
    assert 1 <= max_depth and 1 <= topk and num_nodes >= max_depth + 1
    assert num_nodes <= 1 + topk + (max_depth - 1) * topk * topk
    assert all(0 <= x <= max_depth for x in accept_lengths)
    assert batch % len(accept_lengths) == 0, "batch must be a multiple of the length pattern"
    assert abs(sum(accept_lengths) / len(accept_lengths) - float(config["mean_accept"])) < 1e-9
    assert 0.7 <= threshold_acc <= 1.0 and 0.1 <= threshold_single <= 1.0
    assert temperature > 0.0

    cpu = torch.Generator()
    cpu.manual_seed(seed)
    dev = torch.Generator(device=device)
    dev.manual_seed(seed ^ 0x5DEECE66D)

    lengths = [accept_lengths[i % len(accept_lengths)] for i in range(batch)]
    order = torch.randperm(batch, generator=cpu).tolist()
    lengths = [lengths[i] for i in order]

    candidates = torch.empty((batch, num_nodes), dtype=torch.int32)
    first_child = torch.full((batch, num_nodes), -1, dtype=torch.int32)
    next_sibling = torch.full((batch, num_nodes), -1, dtype=torch.int32)
    head_rows, head_cols, head_logp = [], [], []
    paths, accepted_ranks = [], []
    for b in range(batch):
        parent, depth, token = _build_tree(cpu, num_nodes, max_depth, topk, vocab)
        kids = _children(parent)
        candidates[b] = torch.tensor(token, dtype=torch.int32)
        for node, cs in enumerate(kids):
            if cs:
                first_child[b, node] = cs[0]
            for a, c in zip(cs, cs[1:]):
                next_sibling[b, a] = c
        path = _choose_path(cpu, kids, _heights(kids), lengths[b])
        paths.append(path)
        on_path = {node: i for i, node in enumerate(path)}
        ranks = []
        for node in range(num_nodes):
            child_tokens = [token[c] for c in kids[node]]
            extra = _distinct_tokens(cpu, EXTRA_HEADS, vocab, set(child_tokens))
            if node in on_path and on_path[node] + 1 < len(path):
                role, rank = "accept", kids[node].index(path[on_path[node] + 1])
            elif node in on_path:
                role, rank = "end", -1
            else:
                role, rank = "free", -1
            if node in on_path:
                ranks.append(rank)
            heads = _head_probabilities(cpu, role, child_tokens, rank, extra)
            assert sum(heads.values()) < 0.99
            row = b * num_nodes + node
            for t, p in heads.items():
                head_rows.append(row)
                head_cols.append(t)
                head_logp.append(math.log(p))
        accepted_ranks.append(ranks)

    # Scaled logits s = log(target probability): a Gaussian bulk holding the mass the heads
    # leave, then the head tokens set to their log-probabilities; logits = temperature * (s + c)
    # with a per-row offset c, since softmax ignores it.
    rows = batch * num_nodes
    bulk = torch.randn((rows, vocab), generator=dev, device=device) * BULK_SCALE
    head_mass = torch.zeros(rows, dtype=torch.float64)
    head_mass.index_add_(0, torch.tensor(head_rows, dtype=torch.int64),
                         torch.tensor(head_logp, dtype=torch.float64).exp())
    log_bulk_mass = (1.0 - head_mass).log().float().to(device)
    scaled = bulk - torch.logsumexp(bulk, dim=1, keepdim=True) + log_bulk_mass[:, None]
    scaled[torch.tensor(head_rows, device=device), torch.tensor(head_cols, device=device)] = \
        torch.tensor(head_logp, dtype=torch.float32, device=device)
    offset = 20.0 * torch.rand((rows, 1), generator=dev, device=device)
    logits = ((scaled + offset) * temperature).view(batch, num_nodes, vocab).contiguous()

    # Coins: the one of a path node lies inside the interval that accepts the chosen child
    # (or, at the path's end, rejects every child), at least COIN_MARGIN from its ends; the
    # probabilities come from the stored fp32 logits, in float64.
    coins = torch.rand((batch, num_nodes), generator=cpu, dtype=torch.float64)
    inv_t = 1.0 / torch.tensor(temperature, dtype=torch.float32).double()
    for b in range(batch):
        path = paths[b]
        rows_here = logits[b, path].double() * inv_t
        log_z = torch.logsumexp(rows_here, dim=1)
        for i, node in enumerate(path):
            kid_nodes = []
            c = int(first_child[b, node])
            while c >= 0:
                kid_nodes.append(c)
                c = int(next_sibling[b, c])
            if not kid_nodes:
                continue
            toks = torch.tensor([int(candidates[b, c]) for c in kid_nodes], device=device)
            p = (rows_here[i, toks] - log_z[i]).exp().cpu().tolist()
            cum = [sum(p[:k + 1]) for k in range(len(p))]
            rank = accepted_ranks[b][i]
            stop = rank if rank >= 0 else len(p)
            assert all(q < threshold_single - 0.01 for q in p[:stop])
            lo = (cum[stop - 1] if stop > 0 else 0.0) / threshold_acc
            if rank >= 0:
                single = p[rank] >= threshold_single + 0.01
                hi = 1.0 if single else min(1.0, cum[rank] / threshold_acc)
            else:
                hi = 1.0
            assert hi - lo > 4 * COIN_MARGIN, "no room for a coin"
            coins[b, node] = _uniform(cpu, lo + COIN_MARGIN, hi - COIN_MARGIN)

    temperature_t = torch.full((batch,), temperature, dtype=torch.float32, device=device)
    return [logits,
            candidates.to(device), first_child.to(device), next_sibling.to(device),
            coins.float().to(device), temperature_t,
            max_depth, topk, greedy, threshold_single, threshold_acc,
            SAMPLE_SEED]


# The sampling seed is a static input, fixed per workload: the evaluator replaces it with a
# fresh value for every call of its distribution check's fit test.
SAMPLE_SEED = 0x7EE5EED
