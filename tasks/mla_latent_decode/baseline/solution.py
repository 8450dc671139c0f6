"""Baseline: one Triton program per (request, head) that expands the latent into that head's keys
and values on the fly, block by block, and runs an online softmax over them.

The first correct kernel one writes from the model's definition of MLA: the keys of head h are
[w_uk[h] c ; k_rope] and its values w_uv[h] c, so for every block of BLOCK_N cached tokens the
program reads the latent rows through the block table, multiplies them by the head's two
up-projections on tensor cores (keys and values rounded to bf16, as the model's linear layer
returns them), scores the request's s_q query tokens against the keys (each with its causal
limit) and accumulates the weighted values with an fp32 online softmax. No expanded key or
value ever reaches memory, and the call needs no scratch.

What it does not do: it pays the up-projection, 2 * kv_lora_rank * (qk_nope_head_dim +
v_head_dim) flops per token and head, on every step; every head re-reads the latent rows and
its 2 x 128 KiB of weights per block; and a request is never split along its length.

PyTorch is used only to allocate the output and make views.
"""

import torch
import triton
import triton.language as tl

_LOG2_E = 1.4426950408889634
_BLOCK_N = 64
# Latent columns per step of the up-projection (the K dimension of the two products); the
# step's latent slice and weight blocks are what the software pipeline keeps in flight.
_BLOCK_C = 64
_NUM_WARPS = 8
_NUM_STAGES = 2


@triton.jit
def _expand_attend_kernel(
    q_nope_ptr, q_rope_ptr, kv_ptr, block_table_ptr, seq_lens_ptr, w_uk_ptr, w_uv_ptr, o_ptr,
    score_scale_log2, S_Q, H,
    stride_qm, stride_qh, stride_rm, stride_rh, stride_kp, stride_ks, stride_bt,
    stride_wkh, stride_wkd, stride_wvh, stride_wvd, stride_om, stride_oh,
    NOPE: tl.constexpr, ROPE: tl.constexpr, LORA: tl.constexpr, V_DIM: tl.constexpr,
    PAGE_SIZE: tl.constexpr, SQ_PAD: tl.constexpr, BLOCK_N: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    head = tl.program_id(0)
    b = tl.program_id(1)

    rows = tl.arange(0, SQ_PAD)  # the request's query tokens, padded to a tensor-core tile
    row_ok = rows < S_Q
    m_row = b * S_Q + rows
    seq_len = tl.load(seq_lens_ptr + b)
    limit = seq_len - S_Q + 1 + rows  # query token i sees tokens 0 .. seq_len - s_q + i

    nope_dims = tl.arange(0, NOPE)
    rope_dims = tl.arange(0, ROPE)
    v_dims = tl.arange(0, V_DIM)
    q_nope = tl.load(q_nope_ptr + m_row[:, None] * stride_qm + head * stride_qh
                     + nope_dims[None, :], mask=row_ok[:, None], other=0.0)
    q_rope = tl.load(q_rope_ptr + m_row[:, None] * stride_rm + head * stride_rh
                     + rope_dims[None, :], mask=row_ok[:, None], other=0.0)

    m_i = tl.full([SQ_PAD], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([SQ_PAD], dtype=tl.float32)
    acc = tl.zeros([SQ_PAD, V_DIM], dtype=tl.float32)
    table = block_table_ptr + b * stride_bt
    for n0 in range(0, seq_len, BLOCK_N):
        tokens = n0 + tl.arange(0, BLOCK_N)
        valid = tokens < seq_len
        page = tl.load(table + tokens // PAGE_SIZE, mask=valid, other=0).to(tl.int64)
        row = kv_ptr + page * stride_kp + (tokens % PAGE_SIZE) * stride_ks

        # This head's keys and values of the block: k_nope = c w_uk[h]^T, v = c w_uv[h]^T.
        k_nope = tl.zeros([BLOCK_N, NOPE], dtype=tl.float32)
        v = tl.zeros([BLOCK_N, V_DIM], dtype=tl.float32)
        for c0 in range(0, LORA, BLOCK_C):
            cols = c0 + tl.arange(0, BLOCK_C)
            c = tl.load(row[:, None] + cols[None, :], mask=valid[:, None], other=0.0)
            w_k = tl.load(w_uk_ptr + head * stride_wkh + nope_dims[None, :] * stride_wkd
                          + cols[:, None])
            w_v = tl.load(w_uv_ptr + head * stride_wvh + v_dims[None, :] * stride_wvd
                          + cols[:, None])
            k_nope = tl.dot(c, w_k, k_nope)
            v = tl.dot(c, w_v, v)
        k_rope = tl.load(row[:, None] + LORA + rope_dims[None, :], mask=valid[:, None], other=0.0)

        s = tl.dot(q_nope, tl.trans(k_nope.to(q_nope.dtype)))
        s = tl.dot(q_rope, tl.trans(k_rope), s) * score_scale_log2
        s = tl.where(valid[None, :] & (tokens[None, :] < limit[:, None]), s, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = tl.dot(p.to(q_nope.dtype), v.to(q_nope.dtype), acc * alpha[:, None])
        m_i = m_new

    out = acc / l_i[:, None]
    tl.store(o_ptr + m_row[:, None] * stride_om + head * stride_oh + v_dims[None, :],
             out.to(o_ptr.dtype.element_ty), mask=row_ok[:, None])


def run(q_nope, q_rope, kv_cache, block_table, seq_lens, w_uk, w_uv, sm_scale):
    for name, t in (("q_nope", q_nope), ("q_rope", q_rope), ("kv_cache", kv_cache),
                    ("block_table", block_table), ("w_uk", w_uk), ("w_uv", w_uv)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    batch, s_q, h, nope_dim = q_nope.shape
    rope_dim = q_rope.shape[-1]
    page_size, latent_dim = kv_cache.shape[1], kv_cache.shape[2]
    v_dim = w_uv.shape[1]
    if page_size & (page_size - 1):
        raise ValueError("page_size must be a power of two")
    rows = batch * s_q
    q_nope_2d = q_nope.view(rows, h, nope_dim)
    q_rope_2d = q_rope.view(rows, h, rope_dim)
    out = torch.empty((batch, s_q, h, v_dim), dtype=q_nope.dtype, device=q_nope.device)
    out_2d = out.view(rows, h, v_dim)
    _expand_attend_kernel[(h, batch)](
        q_nope_2d, q_rope_2d, kv_cache, block_table, seq_lens, w_uk, w_uv, out_2d,
        float(sm_scale) * _LOG2_E, s_q, h,
        q_nope_2d.stride(0), q_nope_2d.stride(1), q_rope_2d.stride(0), q_rope_2d.stride(1),
        kv_cache.stride(0), kv_cache.stride(1), block_table.stride(0),
        w_uk.stride(0), w_uk.stride(1), w_uv.stride(0), w_uv.stride(1),
        out_2d.stride(0), out_2d.stride(1),
        NOPE=nope_dim, ROPE=rope_dim, LORA=latent_dim - rope_dim, V_DIM=v_dim,
        PAGE_SIZE=page_size, SQ_PAD=max(16, triton.next_power_of_2(s_q)), BLOCK_N=_BLOCK_N,
        BLOCK_C=_BLOCK_C, num_warps=_NUM_WARPS, num_stages=_NUM_STAGES,
    )
    return out
