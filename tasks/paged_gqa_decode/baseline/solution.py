"""Baseline: one Triton program per (request, query head), a loop over the request's tokens.

The first correct kernel most engineers write for paged decode attention. Each program keeps
its query head's vector in registers, walks the request's tokens BLOCK_N at a time (looking up
each token's page in the block table), scores them on CUDA cores, and keeps a running max,
running sum and output accumulator (online softmax) in fp32.

What it does not do, on purpose: the h_q / h_kv query heads that share a KV head run in separate
programs, so every KV page is fetched once per query head rather than once per KV head; and a
request is never split along its length, so the grid has only batch * h_q programs however long
the context is (64 programs for the 131072-token workload, on a 132-SM device).

PyTorch is used only to allocate the output.
"""

import torch
import triton
import triton.language as tl

_BLOCK_N = 64
_NUM_WARPS = 4


@triton.jit
def _decode_one_head_kernel(
    q_ptr, k_ptr, v_ptr, block_table_ptr, seq_lens_ptr, o_ptr,
    score_scale, v_scale,
    stride_qb, stride_qh,
    stride_kp, stride_ks, stride_kh,
    stride_vp, stride_vs, stride_vh,
    stride_bt,
    stride_ob, stride_oh,
    GROUP: tl.constexpr, PAGE_SIZE: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
):
    # grid = (h_q, batch)
    head = tl.program_id(0)
    b = tl.program_id(1)
    kv_head = head // GROUP
    dims = tl.arange(0, HEAD_DIM)

    q = tl.load(q_ptr + b * stride_qb + head * stride_qh + dims).to(tl.float32)
    seq_len = tl.load(seq_lens_ptr + b)

    m_i = float("-inf")
    l_i = 0.0
    acc = tl.zeros([HEAD_DIM], dtype=tl.float32)
    for start in range(0, seq_len, BLOCK_N):
        tokens = start + tl.arange(0, BLOCK_N)
        valid = tokens < seq_len
        page = tl.load(block_table_ptr + b * stride_bt + tokens // PAGE_SIZE, mask=valid, other=0)
        page = page.to(tl.int64)
        slot = tokens % PAGE_SIZE

        k_rows = k_ptr + page * stride_kp + slot * stride_ks + kv_head * stride_kh
        k = tl.load(k_rows[:, None] + dims[None, :], mask=valid[:, None], other=0.0)
        scores = tl.sum(k.to(tl.float32) * q[None, :], axis=1) * score_scale
        scores = tl.where(valid, scores, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(scores, axis=0))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(scores - m_new)

        v_rows = v_ptr + page * stride_vp + slot * stride_vs + kv_head * stride_vh
        v = tl.load(v_rows[:, None] + dims[None, :], mask=valid[:, None], other=0.0)
        acc = acc * alpha + tl.sum(p[:, None] * v.to(tl.float32), axis=0)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        m_i = m_new

    out = acc * (v_scale / l_i)
    tl.store(o_ptr + b * stride_ob + head * stride_oh + dims, out.to(o_ptr.dtype.element_ty))


def run(q, k_cache, v_cache, block_table, seq_lens, sm_scale, k_scale, v_scale):
    batch, h_q, head_dim = q.shape
    page_size, h_kv = k_cache.shape[1], k_cache.shape[2]
    if h_q % h_kv != 0:
        raise ValueError("h_q must be a multiple of h_kv")
    if k_cache.dtype == torch.uint8:
        # A uint8 cache holds fp8 e4m3fn bytes: reinterpret it (no copy) so the kernel loads fp8.
        k_cache = k_cache.view(torch.float8_e4m3fn)
        v_cache = v_cache.view(torch.float8_e4m3fn)
    if q.stride(2) != 1 or k_cache.stride(3) != 1 or v_cache.stride(3) != 1 or block_table.stride(1) != 1:
        raise ValueError("q, the caches and block_table need a unit stride in their last dimension")
    if head_dim & (head_dim - 1) or page_size & (page_size - 1):
        raise ValueError("head_dim and page_size must be powers of two")

    out = torch.empty((batch, h_q, head_dim), dtype=q.dtype, device=q.device)
    _decode_one_head_kernel[(h_q, batch)](
        q, k_cache, v_cache, block_table, seq_lens, out,
        float(sm_scale) * float(k_scale), float(v_scale),
        q.stride(0), q.stride(1),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        block_table.stride(0),
        out.stride(0), out.stride(1),
        GROUP=h_q // h_kv, PAGE_SIZE=page_size, HEAD_DIM=head_dim, BLOCK_N=_BLOCK_N,
        num_warps=_NUM_WARPS,
    )
    return out
