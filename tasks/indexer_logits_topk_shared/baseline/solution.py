"""Baseline: the first correct custom-kernel version, written without the design guidance.

Two Triton kernels per call:

1. `_score_kernel`, grid (T, key tiles over the block table's whole capacity): one program per
   query and BLOCK_N key positions. It reads the keys through the block table, decodes the FP8
   codes to float32 and loops over the heads: per head, the query vector is decoded and the dot
   products with the BLOCK_N keys are an elementwise product and a row sum on the CUDA cores;
   ReLU, the head's weight and the key scale follow, and the head terms are summed in fp32. It
   writes a score for every position of the row: -inf outside [ks, ke).
2. `_topk_kernel`, grid (T,): one program per row. It finds the topk-th largest score bit by bit:
   the scores are mapped to unsigned keys in float order, and 32 counting passes over the row
   fix the threshold key from the most significant bit down (count the keys at or above the
   candidate; keep the bit when at least topk are). A last pass in position order writes the keys
   above the threshold and the first keys equal to it (lower positions first) at running-count
   slots, so the output is ascending; -1 fills the rest.

PyTorch only allocates the scratch scores and the output.
"""

import torch
import triton
import triton.language as tl

HEAD_DIM = 128
BLOCK_N = 64
TOPK_BLOCK = 2048


@triton.jit
def _score_kernel(
    q_ptr, k_ptr, kscale_ptr, w_ptr, bt_ptr, req_ptr, ks_ptr, ke_ptr, out_ptr,
    H, max_pages, page_size, width,
    BLOCK_N: tl.constexpr, D: tl.constexpr,
):
    t = tl.program_id(0)
    tile = tl.program_id(1)
    pos = tile * BLOCK_N + tl.arange(0, BLOCK_N)
    dims = tl.arange(0, D)
    req = tl.load(req_ptr + t)
    ks = tl.load(ks_ptr + t)
    ke = tl.load(ke_ptr + t)
    inside = (pos >= ks) & (pos < ke)

    page = tl.load(bt_ptr + req * max_pages + pos // page_size, mask=inside, other=0)
    row = page.to(tl.int64) * page_size + pos % page_size
    codes = tl.load(k_ptr + row[:, None] * D + dims[None, :], mask=inside[:, None], other=0)
    keys = codes.to(tl.float8e4nv, bitcast=True).to(tl.float32)            # [BLOCK_N, D]
    scale = tl.load(kscale_ptr + row, mask=inside, other=0.0)

    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for h in range(0, H):
        qc = tl.load(q_ptr + (t.to(tl.int64) * H + h) * D + dims)
        qv = qc.to(tl.float8e4nv, bitcast=True).to(tl.float32)             # [D]
        dot = tl.sum(keys * qv[None, :], axis=1)                            # [BLOCK_N]
        w = tl.load(w_ptr + t.to(tl.int64) * H + h)
        acc += tl.maximum(dot, 0.0) * w
    score = tl.where(inside, acc * scale, float("-inf"))
    tl.store(out_ptr + t.to(tl.int64) * width + pos, score, mask=pos < width)


@triton.jit
def _ordered_key(x):
    """uint32 keys whose unsigned order is the float order of x (-0 and +0 equal)."""
    x = tl.where(x == 0.0, 0.0, x)
    bits = x.to(tl.uint32, bitcast=True)
    sign = tl.full(bits.shape, 1, tl.uint32) << 31
    return tl.where((bits & sign) != 0, ~bits, bits | sign)


@triton.jit
def _topk_kernel(scores_ptr, ks_ptr, ke_ptr, out_ptr, width, K, BLOCK: tl.constexpr):
    t = tl.program_id(0)
    ks = tl.load(ks_ptr + t)
    ke = tl.load(ke_ptr + t)
    row_ptr = scores_ptr + t.to(tl.int64) * width
    out_row = out_ptr + t.to(tl.int64) * K
    offs = tl.arange(0, BLOCK)

    thr = tl.full([], 0, tl.uint32)
    need = K
    if ke - ks > K:
        # The largest key value v such that at least K keys are >= v, built bit by bit.
        for bit in tl.static_range(32):
            cand = thr | (tl.full([], 1, tl.uint32) << (31 - bit))
            count = tl.full([], 0, tl.int32)
            for start in range(ks, ke, BLOCK):
                pos = start + offs
                m = pos < ke
                u = _ordered_key(tl.load(row_ptr + pos, mask=m, other=0.0))
                count += tl.sum((m & (u >= cand)).to(tl.int32), axis=0)
            thr = tl.where(count >= K, cand, thr)
        # Keys strictly above the threshold are all selected; the rest come from the equal ones.
        above = tl.full([], 0, tl.int32)
        for start in range(ks, ke, BLOCK):
            pos = start + offs
            m = pos < ke
            u = _ordered_key(tl.load(row_ptr + pos, mask=m, other=0.0))
            above += tl.sum((m & (u > thr)).to(tl.int32), axis=0)
        need = K - above

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
    max_pages = block_table.shape[1]
    width = max_pages * page_size
    assert head_dim == HEAD_DIM and k_cache.shape[2] == HEAD_DIM
    assert tuple(weights.shape) == (tokens, heads) and tuple(k_scale.shape) == (num_pages, page_size)

    out = torch.empty((tokens, topk), dtype=torch.int32, device=q.device)
    if tokens == 0:
        return out
    scores = torch.empty((tokens, width), dtype=torch.float32, device=q.device)
    _score_kernel[(tokens, triton.cdiv(width, BLOCK_N))](
        q, k_cache, k_scale, weights, block_table, query_req, ks, ke, scores,
        heads, max_pages, page_size, width,
        BLOCK_N=BLOCK_N, D=HEAD_DIM, num_warps=4,
    )
    _topk_kernel[(tokens,)](scores, ks, ke, out, width, topk, BLOCK=TOPK_BLOCK, num_warps=8)
    return out
