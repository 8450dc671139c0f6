"""Expert: lightning-indexer scores with the heads reduced inside the tensor-core tile, and an
exact top-k by radix select on the float bits, two Triton kernels per call.

1. `_score_kernel`, grid (query blocks, key chunks). A program owns QB consecutive queries and one
   chunk of CHUNK key positions. It walks the tiles of the chunk that intersect the queries' key
   ranges (tiles outside every range are never loaded or computed), finds each key's page through
   the block table, loads BLOCK_N FP8 keys once and, for every query of the block, computes all
   heads at once as one FP8 tensor-core product: the (head, key) tile S = Q_t K^T with the H query
   vectors of the query as the rows (padded to 64) and fp32 accumulation. ReLU, the
   per-head weights, the sum over the heads and the key scales are applied to S in registers, so
   only the [T, width] float32 scores are written: never a per-head score. QB > 1 when queries
   share their request's keys (prefill), so one key tile load serves QB queries; a query of a
   different request in the same block loads its own tile (masked loads, no branch).
2. `_topk_kernel`, grid (T,). A program owns one query's row of scores over [ks, ke). The scores
   are mapped to unsigned keys whose integer order is the float order (the sign bit flipped for
   positives, all bits flipped for negatives, -0 taken as +0). Four passes of 8-bit digits from the
   most significant one each build a 256-bin histogram (tl.histogram) of the keys that match the
   digits chosen so far and pick the digit holding the topk-th largest key: after four passes the
   exact threshold key and the number of keys equal to it that still belong to the top-k are known.
   A last pass walks the row in position order and writes every key above the threshold, plus the
   first `need` keys equal to it (the lower positions: the tie rule), at the slots given by a
   running prefix count, so the output is ascending without any sort. Empty slots get -1. A row
   with at most topk positions takes all of them.

The scores are exact on the task's input grids (integer dot products, weights and power-of-two
scales), so the threshold and the tie decisions are the reference's.

PyTorch only allocates the scratch scores and the output.
"""

import torch
import triton
import triton.language as tl

HEAD_DIM = 128
BLOCK_N = 128            # keys per tile of the score product
CHUNK = 2048             # key positions per score program
QB_SHARED = 8            # queries per score program when requests hold several queries
SCORE_WARPS = 4
SCORE_STAGES = 3
# A prefill block keeps QB query tiles besides the key tile; three stages of that overflow the
# 227 KB of shared memory an H200 block may use, two fit.
SCORE_STAGES_SHARED = 2
TOPK_BLOCK = 4096        # scores per step of the radix passes
TOPK_WARPS = 8


@triton.jit
def _score_kernel(
    q_ptr, k_ptr, kscale_ptr, w_ptr, bt_ptr, req_ptr, ks_ptr, ke_ptr, out_ptr,
    T, H, max_pages, page_size, width,
    HP: tl.constexpr, QB: tl.constexpr, BLOCK_N: tl.constexpr, CHUNK: tl.constexpr,
    D: tl.constexpr,
):
    qblock = tl.program_id(0)
    chunk = tl.program_id(1)
    t0 = qblock * QB
    chunk_lo = chunk * CHUNK
    chunk_hi = chunk_lo + CHUNK

    # The union of the block's key ranges, clipped to the chunk.
    qs = t0 + tl.arange(0, QB)
    q_ok = qs < T
    lo_all = tl.min(tl.where(q_ok, tl.load(ks_ptr + qs, mask=q_ok, other=0), 2147483647))
    hi_all = tl.max(tl.where(q_ok, tl.load(ke_ptr + qs, mask=q_ok, other=0), 0))
    lo = tl.maximum(lo_all, chunk_lo)
    hi = tl.minimum(hi_all, chunk_hi)
    lo = (lo // BLOCK_N) * BLOCK_N

    req0 = tl.load(req_ptr + t0)
    heads = tl.arange(0, HP)
    head_ok = heads < H
    dims = tl.arange(0, D)
    offs_n = tl.arange(0, BLOCK_N)

    for start in range(lo, hi, BLOCK_N):
        pos = start + offs_n
        in_width = pos < width
        # The key tile of the block's first request, loaded once for every query of that request.
        page0 = tl.load(bt_ptr + req0 * max_pages + pos // page_size, mask=in_width, other=0)
        row0 = page0.to(tl.int64) * page_size + pos % page_size
        k0 = tl.load(k_ptr + row0[:, None] * D + dims[None, :], mask=in_width[:, None], other=0)
        s0 = tl.load(kscale_ptr + row0, mask=in_width, other=0.0)
        for j in tl.static_range(QB):
            t = t0 + j
            t_ok = t < T
            tc = tl.minimum(t, T - 1)
            req = tl.load(req_ptr + tc)
            kst = tl.load(ks_ptr + tc)
            ket = tl.load(ke_ptr + tc)
            kt = k0
            st = s0
            if QB > 1:
                # A query of another request (a block across a request boundary) reads its own
                # tile; for the others these loads are fully masked and move no data.
                other_req = in_width & (req != req0)
                page = tl.load(bt_ptr + req * max_pages + pos // page_size, mask=other_req,
                               other=0)
                row = page.to(tl.int64) * page_size + pos % page_size
                k_own = tl.load(k_ptr + row[:, None] * D + dims[None, :],
                                mask=other_req[:, None], other=0)
                s_own = tl.load(kscale_ptr + row, mask=other_req, other=0.0)
                kt = tl.where(req == req0, k0, k_own)
                st = tl.where(req == req0, s0, s_own)
            q = tl.load(q_ptr + (tc.to(tl.int64) * H + heads[:, None]) * D + dims[None, :],
                        mask=head_ok[:, None], other=0)
            w = tl.load(w_ptr + tc.to(tl.int64) * H + heads, mask=head_ok, other=0.0)
            # All heads of the query against the key tile on the FP8 tensor cores.
            s = tl.dot(q.to(tl.float8e4nv, bitcast=True),
                       tl.trans(kt.to(tl.float8e4nv, bitcast=True)))       # [HP, BLOCK_N] fp32
            score = tl.sum(tl.maximum(s, 0.0) * w[:, None], axis=0) * st    # [BLOCK_N]
            keep = t_ok & (pos >= kst) & (pos < ket) & in_width
            tl.store(out_ptr + tc.to(tl.int64) * width + pos, score, mask=keep)


@triton.jit
def _ordered_key(x):
    """uint32 keys whose unsigned order is the float order of x (-0 and +0 equal)."""
    x = tl.where(x == 0.0, 0.0, x)
    bits = x.to(tl.uint32, bitcast=True)
    sign = tl.full(bits.shape, 1, tl.uint32) << 31
    return tl.where((bits & sign) != 0, ~bits, bits | sign)


@triton.jit
def _topk_kernel(
    scores_ptr, ks_ptr, ke_ptr, out_ptr, width, K,
    BLOCK: tl.constexpr,
):
    t = tl.program_id(0)
    ks = tl.load(ks_ptr + t)
    ke = tl.load(ke_ptr + t)
    row_ptr = scores_ptr + t.to(tl.int64) * width
    out_row = out_ptr + t.to(tl.int64) * K
    offs = tl.arange(0, BLOCK)
    digits = tl.arange(0, 256)

    # With at most K positions every one is selected: threshold 0 is below every finite key.
    thr = tl.full([], 0, tl.uint32)
    need = K
    if ke - ks > K:
        prefix = tl.full([], 0, tl.uint32)
        pmask = tl.full([], 0, tl.uint32)
        for p in tl.static_range(4):
            shift = 24 - 8 * p
            hist = tl.zeros([256], dtype=tl.int32)
            for start in range(ks, ke, BLOCK):
                pos = start + offs
                m = pos < ke
                u = _ordered_key(tl.load(row_ptr + pos, mask=m, other=0.0))
                match = m & ((u & pmask) == prefix)
                digit = ((u >> shift) & 255).to(tl.int32)
                hist += tl.histogram(digit, 256, mask=match)
            # The digit holding the need-th largest matching key.
            at_or_above = tl.sum(hist, axis=0) - tl.cumsum(hist, axis=0) + hist
            b = tl.max(tl.where(at_or_above >= need, digits, -1), axis=0)
            above = tl.sum(tl.where(digits > b, hist, 0), axis=0)
            need = need - above
            prefix = prefix | (b.to(tl.uint32) << shift)
            pmask = pmask | (tl.full([], 255, tl.uint32) << shift)
        thr = prefix

    # Position order: keys above the threshold, and the first `need` keys equal to it.
    written = tl.full([], 0, tl.int32)
    equal_seen = tl.full([], 0, tl.int32)
    for start in range(ks, ke, BLOCK):
        pos = start + offs
        m = pos < ke
        u = _ordered_key(tl.load(row_ptr + pos, mask=m, other=0.0))
        eq = (m & (u == thr)).to(tl.int32)
        eq_rank = equal_seen + tl.cumsum(eq, axis=0) - eq
        sel = (m & (u > thr)) | ((eq != 0) & (eq_rank < need))
        sel_i = sel.to(tl.int32)
        slot = written + tl.cumsum(sel_i, axis=0) - sel_i
        tl.store(out_row + slot, pos, mask=sel)
        written += tl.sum(sel_i, axis=0)
        equal_seen += tl.sum(eq, axis=0)
    for start in range(written, K, BLOCK):
        pos = start + offs
        tl.store(out_row + pos, tl.full([BLOCK], -1, tl.int32), mask=pos < K)


def run(q, k_cache, k_scale, weights, block_table, query_req, ks, ke, topk):
    tokens, heads, head_dim = q.shape
    num_pages, page_size, _ = k_cache.shape
    batch, max_pages = block_table.shape
    width = max_pages * page_size
    assert head_dim == HEAD_DIM and k_cache.shape[2] == HEAD_DIM
    assert tuple(weights.shape) == (tokens, heads) and tuple(k_scale.shape) == (num_pages, page_size)
    assert query_req.shape[0] == tokens and ks.shape[0] == tokens and ke.shape[0] == tokens
    assert q.is_contiguous() and k_cache.is_contiguous() and k_scale.is_contiguous()
    assert weights.is_contiguous() and block_table.is_contiguous()

    out = torch.empty((tokens, topk), dtype=torch.int32, device=q.device)
    if tokens == 0:
        return out
    scores = torch.empty((tokens, width), dtype=torch.float32, device=q.device)

    # Head rows padded to 64, the row count of one warpgroup's FP8 tensor-core product (the padded
    # rows hold zero codes and zero weights; at 32 heads the key stream, not the product, limits).
    hp = max(64, triton.next_power_of_2(heads))
    # Several queries per request (a prefill chunk): let one key tile serve QB of them.
    qb = QB_SHARED if tokens > batch else 1
    grid = (triton.cdiv(tokens, qb), triton.cdiv(width, CHUNK))
    _score_kernel[grid](
        q, k_cache, k_scale, weights, block_table, query_req, ks, ke, scores,
        tokens, heads, max_pages, page_size, width,
        HP=hp, QB=qb, BLOCK_N=BLOCK_N, CHUNK=CHUNK, D=HEAD_DIM,
        num_warps=SCORE_WARPS, num_stages=SCORE_STAGES if qb == 1 else SCORE_STAGES_SHARED,
    )
    _topk_kernel[(tokens,)](
        scores, ks, ke, out, width, topk,
        BLOCK=TOPK_BLOCK, num_warps=TOPK_WARPS,
    )
    return out
