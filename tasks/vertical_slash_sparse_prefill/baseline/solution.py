"""Vertical-and-slash prefill as masked flash attention.

Two byte maps per query head mark the slash offsets and the vertical columns (two small
kernels). The attention kernel runs one program per (64-row query block, head) over every key
block up to the diagonal, the way causal flash attention does, and masks each score with the
maps: key j counts for row i when j <= i and (i - j is a slash offset or j is a vertical column).
The online softmax is in fp32; the probabilities are rounded to bf16 for the product with V.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 64
BLOCK_N = 64
LOG2E = 1.4426950408889634


@triton.jit
def _clear_maps(slash_map, vert_map, T, CHUNK: tl.constexpr):
    h = tl.program_id(1)
    offs = tl.program_id(0) * CHUNK + tl.arange(0, CHUNK)
    ok = offs < T
    zero = tl.zeros([CHUNK], dtype=tl.int8)
    tl.store(slash_map + h * T + offs, zero, mask=ok)
    tl.store(vert_map + h * T + offs, zero, mask=ok)


@triton.jit
def _mark_maps(slash_idx, vertical_idx, slash_map, vert_map, T, n_slash, n_vertical,
               CHUNK: tl.constexpr):
    h = tl.program_id(1)
    offs = tl.program_id(0) * CHUNK + tl.arange(0, CHUNK)
    one = tl.full([CHUNK], 1, dtype=tl.int8)
    s_ok = offs < n_slash
    s = tl.load(slash_idx + h * n_slash + offs, mask=s_ok, other=0)
    tl.store(slash_map + h * T + s, one, mask=s_ok)
    v_ok = offs < n_vertical
    col = tl.load(vertical_idx + h * n_vertical + offs, mask=v_ok, other=0)
    tl.store(vert_map + h * T + col, one, mask=v_ok)


@triton.jit
def _masked_attn(q_ptr, k_ptr, v_ptr, o_ptr, slash_map, vert_map, qk_scale, T, GROUP,
                 stride_qt, stride_qh, stride_kt, stride_kh, stride_vt, stride_vh,
                 stride_ot, stride_oh,
                 HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    m = tl.program_id(0)
    h = tl.program_id(1)
    hk = h // GROUP
    offs_m = m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    row_ok = offs_m < T
    q = tl.load(q_ptr + offs_m[:, None] * stride_qt + h * stride_qh + offs_d[None, :],
                mask=row_ok[:, None], other=0.0)

    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)

    # Every key block up to and including the diagonal one.
    end = tl.minimum((m + 1) * BLOCK_M, T)
    for start_n in range(0, end, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        col_ok = offs_n < T
        k = tl.load(k_ptr + offs_n[:, None] * stride_kt + hk * stride_kh + offs_d[None, :],
                    mask=col_ok[:, None], other=0.0)
        v = tl.load(v_ptr + offs_n[:, None] * stride_vt + hk * stride_vh + offs_d[None, :],
                    mask=col_ok[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        diff = offs_m[:, None] - offs_n[None, :]
        keep = (diff >= 0) & col_ok[None, :]
        on_slash = tl.load(slash_map + h * T + diff, mask=keep & (diff < T), other=0)
        on_vert = tl.load(vert_map + h * T + offs_n, mask=col_ok, other=0)
        keep = keep & ((on_slash != 0) | (on_vert != 0)[None, :])
        s = tl.where(keep, s, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(s, 1))
        m_use = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.exp2(m_i - m_use)
        p = tl.exp2(s - m_use[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new

    l_safe = tl.where(l_i == 0.0, 1.0, l_i)
    o = acc / l_safe[:, None]
    tl.store(o_ptr + offs_m[:, None] * stride_ot + h * stride_oh + offs_d[None, :],
             o.to(o_ptr.dtype.element_ty), mask=row_ok[:, None])


def run(q, k, v, vertical_idx, slash_idx, sm_scale):
    T, h_q, head_dim = q.shape
    h_kv = k.shape[1]
    n_vertical = vertical_idx.shape[1]
    n_slash = slash_idx.shape[1]
    assert k.shape == (T, h_kv, head_dim) and v.shape == (T, h_kv, head_dim)
    assert h_q % h_kv == 0
    assert q.stride(2) == 1 and k.stride(2) == 1 and v.stride(2) == 1
    assert vertical_idx.is_contiguous() and slash_idx.is_contiguous()
    device = q.device

    slash_map = torch.empty((h_q, T), dtype=torch.int8, device=device)
    vert_map = torch.empty((h_q, T), dtype=torch.int8, device=device)
    o = torch.empty_like(q)

    chunk = 1024
    _clear_maps[(triton.cdiv(T, chunk), h_q)](slash_map, vert_map, T, CHUNK=chunk)
    _mark_maps[(triton.cdiv(max(n_slash, n_vertical), chunk), h_q)](
        slash_idx, vertical_idx, slash_map, vert_map, T, n_slash, n_vertical, CHUNK=chunk)
    _masked_attn[(triton.cdiv(T, BLOCK_M), h_q)](
        q, k, v, o, slash_map, vert_map, sm_scale * LOG2E, T, h_q // h_kv,
        q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1),
        o.stride(0), o.stride(1),
        HEAD_DIM=head_dim, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4, num_stages=2)
    return o
