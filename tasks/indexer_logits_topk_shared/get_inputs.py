"""Inputs of one lightning-indexer call: FP8 queries, a paged FP8 key cache with per-token scales,
per-head weights, and the key range of every query.

Requests and ranges. Request r holds L_r cached tokens (evenly spaced lengths from ctx_min to
ctx_max, shuffled over the requests); its last q_per_req tokens are the queries of this call, in
order, so query i of request r sees positions [ks, ke) with ke = L_r - q_per_req + i + 1 (causal)
and ks = 0, or ks = max(0, ke - window) when the workload sets `window`. Queries are listed request
by request. The cache holds exactly batch * ceil(ctx_max / page_size) pages and the block table is
a random permutation of them, so every request's pages are scattered over the cache.

Values. The FP8 codes are e4m3 encodings of small integers: queries and keys take integer values in
[-INT_MAX, INT_MAX] (a rounded normal), key scales are powers of two (ue8m0 scales, as the
DeepSeek-V3.2 indexer stores them), and the weights are integers times 2^-WEIGHT_SHIFT. With these
grids every partial sum of every correct float32 evaluation of the score is an exact float32 value
(query-key dot products are integers of magnitude at most 128 * INT_MAX^2 = 6272, and the weighted
sum over heads is a multiple of the weights' grid below 2^24 of its units), so any summation order
gives the same scores bit for bit. The top-k set is then unique under the tie rule (equal scores:
the lower position wins) and can be compared exactly. Ties do occur on these grids.

The "ties" distribution (quick workloads only) draws query and key values from {-1, 0, 1} and
equal weights, so equal scores are everywhere and the tie rule decides most of the boundary.
"""

import torch

INT_MAX = 7              # |query and key values| <= 7: dot products <= 128 * 49 = 6272 < 2^13
VALUE_STD = 2.5          # the rounded normal of the query and key values
WEIGHT_MAX = 40          # |weight| <= 40 * 2^-WEIGHT_SHIFT: 64 heads * 40 * 6272 < 2^24 units
WEIGHT_STD = 12.0
WEIGHT_SHIFT = 8
SCALE_EXPONENTS = (-8, -7, -6)   # key scales 2^e
HEAD_DIM = 128
# Pages of the key cache drawn per step (bounds the temporaries at the largest workloads).
_GEN_PAGES = 1 << 13


def seq_lens(batch, ctx_min, ctx_max):
    """Evenly spaced lengths from ctx_min to ctx_max, placed symmetrically so that they sum to
    batch * (ctx_min + ctx_max) / 2 (rounded down)."""
    if ctx_min == ctx_max or batch == 1:
        return [ctx_max] * batch
    span = ctx_max - ctx_min
    lengths = [0] * batch
    for i in range((batch + 1) // 2):
        low = ctx_min + (2 * i * span + (batch - 1)) // (2 * (batch - 1))
        lengths[i] = low
        lengths[batch - 1 - i] = ctx_min + ctx_max - low
    return lengths


def e4m3_code_of_int(values):
    """e4m3fn codes (uint8) of integer-valued tensors with |v| <= 15."""
    # |v| = (1 + m / 8) * 2^e for 1 <= |v| <= 15: exponent field e + 7, mantissa m; bit 7 the sign.
    codes = []
    for v in range(-15, 16):
        n = abs(v)
        if n == 0:
            codes.append(0)
            continue
        e = n.bit_length() - 1
        codes.append((128 if v < 0 else 0) + (e + 7) * 8 + (n * 8) // (1 << e) - 8)
    table = torch.tensor(codes, dtype=torch.uint8, device=values.device)
    index = values.to(torch.int64) + 15
    if index.numel() and (int(index.min()) < 0 or int(index.max()) > 30):
        raise ValueError("only integers in [-15, 15] are encoded here")
    return table[index]


def _rounded_normal(shape, std, limit, gen, device):
    x = torch.randn(shape, generator=gen, device=device) * std
    return torch.round(x).clamp(-limit, limit)


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    batch = int(config["batch"])
    q_per_req = int(config["q_per_req"])
    heads = int(config["H"])
    ctx_min = int(config["ctx_min"])
    ctx_max = int(config["ctx_max"])
    page_size = int(config["page_size"])
    topk = int(config["topk"])
    head_dim = int(config["head_dim"])
    window = int(config.get("window", 0))
    distribution = config.get("distribution", "realistic")
    if head_dim != HEAD_DIM:
        raise ValueError("the indexer's head dimension is 128")
    if heads > 64:
        raise ValueError("at most 64 indexer heads keep the weighted sum exact in float32")
    if ctx_min < q_per_req:
        raise ValueError("every request must hold at least its q_per_req query tokens")
    if topk < 1:
        raise ValueError("topk must be positive")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))
    tokens = batch * q_per_req
    max_pages = (ctx_max + page_size - 1) // page_size
    num_pages = batch * max_pages

    if distribution not in ("realistic", "ties"):
        raise ValueError(f"unknown distribution {distribution!r}")
    ties = distribution == "ties"
    if ties:
        q_vals = torch.randint(-1, 2, (tokens, heads, head_dim), generator=gen, device=device)
        w_int = torch.full((tokens, heads), 16.0, device=device)
    else:
        q_vals = _rounded_normal((tokens, heads, head_dim), VALUE_STD, INT_MAX, gen, device)
        w_int = _rounded_normal((tokens, heads), WEIGHT_STD, WEIGHT_MAX, gen, device)
    q = e4m3_code_of_int(q_vals).contiguous()
    weights = (w_int.to(torch.float32) * 2.0 ** -WEIGHT_SHIFT).contiguous()

    k_cache = torch.empty((num_pages, page_size, head_dim), dtype=torch.uint8, device=device)
    k_scale = torch.empty((num_pages, page_size), dtype=torch.float32, device=device)
    exps = torch.tensor(SCALE_EXPONENTS, dtype=torch.float32, device=device)
    for first in range(0, num_pages, _GEN_PAGES):
        last = min(first + _GEN_PAGES, num_pages)
        shape = (last - first, page_size, head_dim)
        if ties:
            k_vals = torch.randint(-1, 2, shape, generator=gen, device=device)
            k_scale[first:last] = 2.0 ** -7
        else:
            k_vals = _rounded_normal(shape, VALUE_STD, INT_MAX, gen, device)
            pick = torch.randint(0, len(SCALE_EXPONENTS), (last - first, page_size), generator=gen,
                                 device=device)
            k_scale[first:last] = torch.pow(2.0, exps[pick])
        k_cache[first:last] = e4m3_code_of_int(k_vals)

    block_table = torch.randperm(num_pages, generator=gen, device=device)
    block_table = block_table.to(torch.int32).view(batch, max_pages).contiguous()
    order = torch.randperm(batch, generator=gen, device=device)
    lengths = torch.tensor(seq_lens(batch, ctx_min, ctx_max), dtype=torch.int64, device=device)
    lengths = lengths[order]

    query_req = torch.arange(batch, device=device).repeat_interleave(q_per_req)
    offset = torch.arange(q_per_req, device=device).repeat(batch)
    ke = lengths[query_req] - q_per_req + offset + 1
    if window > 0:
        ks = (ke - window).clamp(min=0)
    else:
        ks = torch.zeros_like(ke)
    return [q, k_cache, k_scale, weights, block_table, query_req.to(torch.int32).contiguous(),
            ks.to(torch.int32).contiguous(), ke.to(torch.int32).contiguous(), topk]
