"""Baseline: paged decode attention per (request, KV head) over the request's whole token list,
the shared prefix's pages first, then its own.

The first correct kernel one writes from the operator's definition: each request attends to the
prefix followed by its own tokens, so each program walks the prefix's pages through
prefix_block_table and then the request's pages through its row of suffix_block_table, BLOCK_N
tokens at a time, with one fp32 online softmax (exp2, log2(e) folded into the score scale) over
both. The G query heads that share a KV head are the rows of one 16-row tile, so S = Q K^T and
P V run on tensor cores and each K/V row is loaded once per (request, KV head).

What it does not do: every request reads the whole prefix again (batch times the prefix's bytes
per call), and a request is never split along its length, so the grid has batch * h_kv programs
whatever the lengths are.

PyTorch is used only to allocate the output.
"""

import torch
import triton
import triton.language as tl

_LOG2_E = 1.4426950408889634
_BLOCK_N = 64
_NUM_WARPS = 4
_NUM_STAGES = 3


@triton.jit
def _attend_block(q, m_i, l_i, acc, k_head, v_head, page, slot, valid, score_scale_log2,
                  stride_kp, stride_ks, stride_vp, stride_vs, HEAD_DIM: tl.constexpr):
    """One online-softmax step over BLOCK_N tokens given by (page, slot), masked by valid."""
    dims = tl.arange(0, HEAD_DIM)
    k = tl.load(k_head + (page * stride_kp + slot * stride_ks)[:, None] + dims[None, :],
                mask=valid[:, None], other=0.0)
    s = tl.dot(q, tl.trans(k)) * score_scale_log2
    s = tl.where(valid[None, :], s, float("-inf"))
    m_new = tl.maximum(m_i, tl.max(s, axis=1))
    alpha = tl.exp2(m_i - m_new)
    p = tl.exp2(s - m_new[:, None])
    l_i = l_i * alpha + tl.sum(p, axis=1)
    v = tl.load(v_head + (page * stride_vp + slot * stride_vs)[:, None] + dims[None, :],
                mask=valid[:, None], other=0.0)
    acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
    return m_new, l_i, acc


@triton.jit
def _decode_kernel(
    q_ptr, k_ptr, v_ptr, prefix_table_ptr, suffix_table_ptr, suffix_lens_ptr, o_ptr,
    score_scale_log2, prefix_len,
    stride_qb, stride_qh,
    stride_kp, stride_ks, stride_kh,
    stride_vp, stride_vs, stride_vh,
    stride_tb, stride_ob, stride_oh,
    GROUP: tl.constexpr, GROUP_PAD: tl.constexpr, PAGE_SIZE: tl.constexpr,
    HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
):
    kv_head = tl.program_id(0)
    b = tl.program_id(1)

    rows = tl.arange(0, GROUP_PAD)
    row_ok = rows < GROUP
    heads = kv_head * GROUP + rows
    dims = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + b * stride_qb + heads[:, None] * stride_qh + dims[None, :],
                mask=row_ok[:, None], other=0.0)

    m_i = tl.full([GROUP_PAD], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([GROUP_PAD], dtype=tl.float32)
    acc = tl.zeros([GROUP_PAD, HEAD_DIM], dtype=tl.float32)
    k_head = k_ptr + kv_head * stride_kh
    v_head = v_ptr + kv_head * stride_vh

    # The shared prefix: token t is slot t % PAGE_SIZE of page prefix_block_table[t // PAGE_SIZE].
    for n0 in range(0, prefix_len, BLOCK_N):
        tokens = n0 + tl.arange(0, BLOCK_N)
        valid = tokens < prefix_len
        page = tl.load(prefix_table_ptr + tokens // PAGE_SIZE, mask=valid, other=0).to(tl.int64)
        slot = (tokens % PAGE_SIZE).to(tl.int64)
        m_i, l_i, acc = _attend_block(q, m_i, l_i, acc, k_head, v_head, page, slot, valid,
                                      score_scale_log2, stride_kp, stride_ks, stride_vp,
                                      stride_vs, HEAD_DIM)

    # The request's own tokens, through its row of suffix_block_table.
    suffix_len = tl.load(suffix_lens_ptr + b)
    table = suffix_table_ptr + b * stride_tb
    for n0 in range(0, suffix_len, BLOCK_N):
        tokens = n0 + tl.arange(0, BLOCK_N)
        valid = tokens < suffix_len
        page = tl.load(table + tokens // PAGE_SIZE, mask=valid, other=0).to(tl.int64)
        slot = (tokens % PAGE_SIZE).to(tl.int64)
        m_i, l_i, acc = _attend_block(q, m_i, l_i, acc, k_head, v_head, page, slot, valid,
                                      score_scale_log2, stride_kp, stride_ks, stride_vp,
                                      stride_vs, HEAD_DIM)

    # prefix_len >= 1, so every row has seen a token and l_i > 0.
    out = acc / l_i[:, None]
    tl.store(o_ptr + b * stride_ob + heads[:, None] * stride_oh + dims[None, :],
             out.to(o_ptr.dtype.element_ty), mask=row_ok[:, None])


def run(q, k_cache, v_cache, prefix_block_table, suffix_block_table, suffix_lens, prefix_len,
        sm_scale):
    batch, h_q, head_dim = q.shape
    page_size, h_kv = k_cache.shape[1], k_cache.shape[2]
    if h_q % h_kv != 0:
        raise ValueError("h_q must be a multiple of h_kv")
    for name, t in (("q", q), ("k_cache", k_cache), ("v_cache", v_cache),
                    ("prefix_block_table", prefix_block_table),
                    ("suffix_block_table", suffix_block_table), ("suffix_lens", suffix_lens)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    if q.dtype != torch.bfloat16 or k_cache.dtype != q.dtype or v_cache.dtype != q.dtype:
        raise ValueError("q, k_cache and v_cache must be bf16")
    if head_dim < 16 or head_dim & (head_dim - 1) or page_size & (page_size - 1):
        raise ValueError("head_dim (>= 16) and page_size must be powers of two")
    group = h_q // h_kv

    out = torch.empty((batch, h_q, head_dim), dtype=q.dtype, device=q.device)
    _decode_kernel[(h_kv, batch)](
        q, k_cache, v_cache, prefix_block_table, suffix_block_table, suffix_lens, out,
        float(sm_scale) * _LOG2_E, int(prefix_len),
        q.stride(0), q.stride(1),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        suffix_block_table.stride(0), out.stride(0), out.stride(1),
        GROUP=group, GROUP_PAD=max(16, triton.next_power_of_2(group)), PAGE_SIZE=page_size,
        HEAD_DIM=head_dim, BLOCK_N=_BLOCK_N,
        num_warps=_NUM_WARPS, num_stages=_NUM_STAGES,
    )
    return out
