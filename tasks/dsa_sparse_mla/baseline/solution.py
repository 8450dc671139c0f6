"""Baseline: one Triton program per (query row, group of 16 heads), a flash-attention loop over
the row's index list.

The first correct kernel one writes from the definition: for every block of BLOCK_N entries the
program loads the entries, masks the invalid ones, loads the listed cache rows (decoding FP8
records with their per-128 scales), scores its 16 heads against them on tensor cores and
accumulates the weighted latent rows with an fp32 online softmax. No gathered copy reaches
memory and the call needs no scratch.

What it does not do: every group of 16 heads loads and decodes the same rows again (8 times at
128 heads), each program's tile is 16 rows deep, and a list is never split across programs.

PyTorch is used only to allocate the outputs and make views of the FP8 cache.
"""

import torch
import triton
import triton.language as tl

_LOG2_E = 1.4426950408889634
_BLOCK_HEADS = 16
# 16 entries per step keeps the decoded [16, 512] block and its scales within the registers of
# 4 warps next to the 16 x 512 accumulator.
_BLOCK_N = 16
_NUM_WARPS = 4
_NUM_STAGES = 2


@triton.jit
def _sparse_attend_kernel(
    q_ptr, kv_ptr, kv_f32_ptr, kv_bf16_ptr, idx_ptr, o_ptr, lse_ptr,
    num_kv, topk, H, score_scale_log2,
    stride_qt, stride_qh, stride_it, stride_ot, stride_oh, stride_lt,
    KV_FP8: tl.constexpr, BLOCK_HEADS: tl.constexpr, BLOCK_N: tl.constexpr,
):
    group = tl.program_id(0)
    t = tl.program_id(1).to(tl.int64)
    heads = group * BLOCK_HEADS + tl.arange(0, BLOCK_HEADS)
    h_ok = heads < H
    lat = tl.arange(0, 512)
    rope = tl.arange(0, 64)

    q_row = q_ptr + t * stride_qt + heads[:, None] * stride_qh
    q_lat = tl.load(q_row + lat[None, :], mask=h_ok[:, None], other=0.0)
    q_rope = tl.load(q_row + 512 + rope[None, :], mask=h_ok[:, None], other=0.0)

    m_i = tl.full([BLOCK_HEADS], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_HEADS], dtype=tl.float32)
    acc = tl.zeros([BLOCK_HEADS, 512], dtype=tl.float32)
    for n0 in range(0, topk, BLOCK_N):
        entries = n0 + tl.arange(0, BLOCK_N)
        in_list = entries < topk
        idx = tl.load(idx_ptr + t * stride_it + entries, mask=in_list, other=-1)
        valid = in_list & (idx >= 0) & (idx < num_kv)
        row = tl.where(valid, idx, 0).to(tl.int64)
        if KV_FP8:
            # Record r: 512 e4m3 bytes at r * 656, the scale of columns 128 j .. 128 j + 127 at
            # fp32 word r * 164 + 128 + j, the rotary values at bf16 halfword r * 328 + 264.
            codes = tl.load(kv_ptr + row[:, None] * 656 + lat[None, :], mask=valid[:, None],
                            other=0)
            scale = tl.load(kv_f32_ptr + row[:, None] * 164 + 128 + lat[None, :] // 128,
                            mask=valid[:, None], other=0.0)
            c = (codes.to(tl.float8e4nv, bitcast=True).to(tl.float32) * scale).to(tl.bfloat16)
            k_rope = tl.load(kv_bf16_ptr + row[:, None] * 328 + 264 + rope[None, :],
                             mask=valid[:, None], other=0.0)
        else:
            c = tl.load(kv_ptr + row[:, None] * 576 + lat[None, :], mask=valid[:, None],
                        other=0.0)
            k_rope = tl.load(kv_ptr + row[:, None] * 576 + 512 + rope[None, :],
                             mask=valid[:, None], other=0.0)

        s = tl.dot(q_rope, tl.trans(k_rope), tl.dot(q_lat, tl.trans(c)))
        s = s * score_scale_log2
        s = tl.where(valid[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.exp2(m_i - m_safe)
        p = tl.exp2(s - m_safe[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = tl.dot(p.to(tl.bfloat16), c, acc * alpha[:, None])
        m_i = m_new

    has = l_i > 0.0
    l_safe = tl.where(has, l_i, 1.0)
    out = tl.where(has[:, None], acc / l_safe[:, None], 0.0)
    lse = tl.where(has, (m_i + tl.log2(l_safe)) * 0.6931471805599453, float("-inf"))
    tl.store(o_ptr + t * stride_ot + heads[:, None] * stride_oh + lat[None, :],
             out.to(tl.bfloat16), mask=h_ok[:, None])
    tl.store(lse_ptr + t * stride_lt + heads, lse, mask=h_ok)


def run(q, kv_cache, indices, sm_scale):
    rows, h, d_qk = q.shape
    topk = indices.shape[1]
    assert d_qk == 576 and q.dtype == torch.bfloat16 and q.stride(2) == 1
    assert indices.dtype == torch.int32 and indices.stride(1) == 1
    assert kv_cache.is_contiguous()
    kv_fp8 = kv_cache.dtype == torch.uint8
    if kv_fp8:
        assert kv_cache.shape[1] == 656
        kv_f32, kv_bf16 = kv_cache.view(torch.float32), kv_cache.view(torch.bfloat16)
    else:
        assert kv_cache.dtype == torch.bfloat16 and kv_cache.shape[1] == 576
        kv_f32, kv_bf16 = kv_cache, kv_cache
    assert rows <= 65535, "query rows are the second grid dimension"
    o = torch.empty((rows, h, 512), dtype=torch.bfloat16, device=q.device)
    lse = torch.empty((rows, h), dtype=torch.float32, device=q.device)
    _sparse_attend_kernel[(triton.cdiv(h, _BLOCK_HEADS), rows)](
        q, kv_cache, kv_f32, kv_bf16, indices, o, lse,
        kv_cache.shape[0], topk, h, float(sm_scale) * _LOG2_E,
        q.stride(0), q.stride(1), indices.stride(0), o.stride(0), o.stride(1), lse.stride(0),
        KV_FP8=kv_fp8, BLOCK_HEADS=_BLOCK_HEADS, BLOCK_N=_BLOCK_N,
        num_warps=_NUM_WARPS, num_stages=_NUM_STAGES,
    )
    return o, lse
