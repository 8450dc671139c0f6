"""Expert: split-KV flash decoding over the paged cache, with the query heads of a KV head packed.

Two kernels per call (one when the batch alone fills the device):

1. `_split_kv_kernel`, grid (num_splits, h_kv, batch). A program owns one KV head of one request
   and one slice of `chunk` tokens of it. Its tile rows are the G = h_q / h_kv query heads that
   share the KV head (padded to 16, the smallest tensor-core tile), so every K/V row it loads
   from HBM serves all G heads at once and each page is read once per KV head, not G times.
   It walks its tokens BLOCK_N at a time, finds each token's page through the block table
   (no gathered copy of the cache), computes S = Q K^T and P V with tl.dot (bf16 operands, fp32
   accumulation) and keeps an fp32 online softmax in the log2 domain (exp2 with log2(e) folded
   into the score scale). It writes its normalized partial output and its log2-sum-exp.
2. `_combine_kernel`, grid (batch * h_q, head_dim / BLOCK_D), merges the partial states exactly:
   o = sum_s 2^(lse_s - max) o_s / sum_s 2^(lse_s - max), over the splits that hold tokens.

The split count is chosen on the host from shapes alone (batch, h_kv, the block table's token
capacity and the SM count), so the grid and the scratch sizes are the same on every call and the
call can be captured in a CUDA graph. Every split covers the same number of tokens; splits past a
request's length do no work, so ragged batches are balanced by the hardware scheduler rather than
by one long program per request.

PyTorch is used only to allocate the output and the partial-state scratch.
"""

import torch
import triton
import triton.language as tl

_LOG2_E = 1.4426950408889634

# Launch shape of the split kernel: BLOCK_N tokens per step. 3 stages keep about
# 2 x 16 KiB of K and V tiles in flight per program while the previous step computes.
_BLOCK_N = 64
_NUM_WARPS = 4
_NUM_STAGES = 3
# An fp8 cache moves half the bytes per token, so a step needs twice the tokens to keep as
# many bytes in flight; on the H200 128 tokens with 2 stages beat 64 with 3 by about 7 % on the
# fp8 workload (`d2k eval paged_gqa_decode --impl expert --workload` of each choice).
_FP8_BLOCK_N = 128
_FP8_NUM_STAGES = 2
# Split planning: aim for this many programs per SM (several resident at once, short tail),
# and keep each split between these token counts.
_PROGRAMS_PER_SM = 8
_MIN_CHUNK = 512
_MAX_CHUNK = 4096
_MAX_SPLITS = 256
# The combine kernel reads all splits of one row slice in one load of SPLITS x BLOCK_D values.
_COMBINE_TILE = 4096


@triton.jit
def _split_kv_kernel(
    q_ptr, k_ptr, v_ptr, block_table_ptr, seq_lens_ptr,
    o_ptr, part_o_ptr, part_lse_ptr,
    score_scale_log2, v_scale, chunk, num_splits, h_q,
    stride_qb, stride_qh,
    stride_kp, stride_ks, stride_kh,
    stride_vp, stride_vs, stride_vh,
    stride_bt,
    stride_ob, stride_oh,
    GROUP: tl.constexpr, GROUP_PAD: tl.constexpr, PAGE_SIZE: tl.constexpr,
    HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, SINGLE_SPLIT: tl.constexpr,
):
    split = tl.program_id(0)
    kv_head = tl.program_id(1)
    b = tl.program_id(2)

    seq_len = tl.load(seq_lens_ptr + b)
    start = split * chunk
    end = tl.minimum(start + chunk, seq_len)

    rows = tl.arange(0, GROUP_PAD)
    row_ok = rows < GROUP
    heads = kv_head * GROUP + rows
    dims = tl.arange(0, HEAD_DIM)
    # The G query heads of this KV head are rows of one tile; padding rows are zero queries.
    q = tl.load(q_ptr + b * stride_qb + heads[:, None] * stride_qh + dims[None, :],
                mask=row_ok[:, None], other=0.0)

    m_i = tl.full([GROUP_PAD], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([GROUP_PAD], dtype=tl.float32)
    acc = tl.zeros([GROUP_PAD, HEAD_DIM], dtype=tl.float32)
    k_head = k_ptr + kv_head * stride_kh
    v_head = v_ptr + kv_head * stride_vh
    table = block_table_ptr + b * stride_bt
    for n0 in range(start, end, BLOCK_N):
        tokens = n0 + tl.arange(0, BLOCK_N)
        valid = tokens < end
        # Page indirection inside the kernel: token t lives in slot t % PAGE_SIZE of page
        # block_table[b, t // PAGE_SIZE].
        page = tl.load(table + tokens // PAGE_SIZE, mask=valid, other=0).to(tl.int64)
        slot = tokens % PAGE_SIZE
        k = tl.load(k_head + (page * stride_kp + slot * stride_ks)[:, None] + dims[None, :],
                    mask=valid[:, None], other=0.0)
        scores = tl.dot(q, tl.trans(k.to(q_ptr.dtype.element_ty))) * score_scale_log2
        scores = tl.where(valid[None, :], scores, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(scores, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(scores - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)

        v = tl.load(v_head + (page * stride_vp + slot * stride_vs)[:, None] + dims[None, :],
                    mask=valid[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(q_ptr.dtype.element_ty),
                                            v.to(q_ptr.dtype.element_ty))
        m_i = m_new

    if SINGLE_SPLIT:
        # The whole request is in this program: finish the softmax and write o directly.
        out = acc * (v_scale / l_i)[:, None]
        tl.store(o_ptr + b * stride_ob + heads[:, None] * stride_oh + dims[None, :],
                 out.to(o_ptr.dtype.element_ty), mask=row_ok[:, None])
    else:
        # Splits past the request's length hold no tokens and write nothing; the combine kernel
        # reads only the first cdiv(seq_len, chunk) splits.
        has_tokens = start < seq_len
        l_safe = tl.where(l_i > 0.0, l_i, 1.0)
        out = acc * (v_scale / l_safe)[:, None]
        lse = m_i + tl.log2(l_safe)
        part_row = (b * h_q + heads) * num_splits + split
        tl.store(part_o_ptr + part_row[:, None] * HEAD_DIM + dims[None, :], out,
                 mask=row_ok[:, None] & has_tokens)
        tl.store(part_lse_ptr + part_row, lse, mask=row_ok & has_tokens)


@triton.jit
def _combine_kernel(
    part_o_ptr, part_lse_ptr, seq_lens_ptr, o_ptr,
    chunk, num_splits, h_q,
    stride_ob, stride_oh,
    HEAD_DIM: tl.constexpr, SPLITS_PAD: tl.constexpr, BLOCK_D: tl.constexpr,
):
    row = tl.program_id(0)  # b * h_q + query head
    d_block = tl.program_id(1)
    b = row // h_q
    head = row % h_q

    seq_len = tl.load(seq_lens_ptr + b)
    used = (seq_len + chunk - 1) // chunk
    splits = tl.arange(0, SPLITS_PAD)
    ok = splits < used
    lse = tl.load(part_lse_ptr + row * num_splits + splits, mask=ok, other=float("-inf"))
    m = tl.max(lse, axis=0)
    weight = tl.where(ok, tl.exp2(lse - m), 0.0)

    dims = d_block * BLOCK_D + tl.arange(0, BLOCK_D)
    parts = tl.load(part_o_ptr + (row * num_splits + splits)[:, None] * HEAD_DIM + dims[None, :],
                    mask=ok[:, None], other=0.0)
    out = tl.sum(weight[:, None] * parts, axis=0) / tl.sum(weight, axis=0)
    tl.store(o_ptr + b * stride_ob + head * stride_oh + dims, out.to(o_ptr.dtype.element_ty))


def _plan_splits(batch, h_kv, max_tokens, num_sms, block_n, page_size,
                 programs_per_sm=_PROGRAMS_PER_SM, max_chunk=_MAX_CHUNK):
    """(num_splits, chunk) from shapes only: one split when batch * h_kv programs already give
    every SM several, otherwise enough equal slices of the token range to reach that count."""
    programs = batch * h_kv
    target = programs_per_sm * num_sms
    if programs >= target:
        return 1, max_tokens
    fewest = triton.cdiv(max_tokens, max_chunk)
    most = max(1, triton.cdiv(max_tokens, _MIN_CHUNK))
    splits = min(max(triton.cdiv(target, programs), fewest), most, _MAX_SPLITS)
    align = max(block_n, page_size)
    chunk = triton.cdiv(triton.cdiv(max_tokens, splits), align) * align
    return triton.cdiv(max_tokens, chunk), chunk


def _forward(q, k_cache, v_cache, block_table, seq_lens, sm_scale, k_scale, v_scale,
             num_splits, chunk, block_n, num_warps, num_stages):
    batch, h_q, head_dim = q.shape
    page_size, h_kv = k_cache.shape[1], k_cache.shape[2]
    group = h_q // h_kv
    if k_cache.dtype == torch.uint8:
        # A uint8 cache holds fp8 e4m3fn bytes: reinterpret it (no copy) so the kernel loads fp8.
        k_cache = k_cache.view(torch.float8_e4m3fn)
        v_cache = v_cache.view(torch.float8_e4m3fn)
    out = torch.empty((batch, h_q, head_dim), dtype=q.dtype, device=q.device)
    single = num_splits == 1
    if single:
        # Never read: the single-split kernel writes o directly.
        part_o = out
        part_lse = out
    else:
        part_o = torch.empty((batch * h_q, num_splits, head_dim), dtype=torch.float32,
                             device=q.device)
        part_lse = torch.empty((batch * h_q, num_splits), dtype=torch.float32, device=q.device)

    _split_kv_kernel[(num_splits, h_kv, batch)](
        q, k_cache, v_cache, block_table, seq_lens,
        out, part_o, part_lse,
        float(sm_scale) * float(k_scale) * _LOG2_E, float(v_scale), chunk, num_splits, h_q,
        q.stride(0), q.stride(1),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        block_table.stride(0),
        out.stride(0), out.stride(1),
        GROUP=group, GROUP_PAD=max(16, triton.next_power_of_2(group)), PAGE_SIZE=page_size,
        HEAD_DIM=head_dim, BLOCK_N=block_n, SINGLE_SPLIT=single,
        num_warps=num_warps, num_stages=num_stages,
    )
    if not single:
        splits_pad = triton.next_power_of_2(num_splits)
        block_d = max(16, min(head_dim, _COMBINE_TILE // splits_pad))
        _combine_kernel[(batch * h_q, head_dim // block_d)](
            part_o, part_lse, seq_lens, out,
            chunk, num_splits, h_q,
            out.stride(0), out.stride(1),
            HEAD_DIM=head_dim, SPLITS_PAD=splits_pad, BLOCK_D=block_d,
            num_warps=4,
        )
    return out


def run(q, k_cache, v_cache, block_table, seq_lens, sm_scale, k_scale, v_scale):
    batch, h_q, head_dim = q.shape
    page_size, h_kv = k_cache.shape[1], k_cache.shape[2]
    if h_q % h_kv != 0:
        raise ValueError("h_q must be a multiple of h_kv")
    if q.stride(2) != 1 or k_cache.stride(3) != 1 or v_cache.stride(3) != 1 or block_table.stride(1) != 1:
        raise ValueError("q, the caches and block_table need a unit stride in their last dimension")
    if head_dim < 16 or head_dim & (head_dim - 1) or page_size & (page_size - 1):
        raise ValueError("head_dim (>= 16) and page_size must be powers of two")
    max_tokens = block_table.shape[1] * page_size
    num_sms = torch.cuda.get_device_properties(q.device).multi_processor_count
    fp8 = k_cache.dtype == torch.uint8
    block_n = _FP8_BLOCK_N if fp8 else _BLOCK_N
    num_stages = _FP8_NUM_STAGES if fp8 else _NUM_STAGES
    num_splits, chunk = _plan_splits(batch, h_kv, max_tokens, num_sms, block_n, page_size)
    return _forward(q, k_cache, v_cache, block_table, seq_lens, sm_scale, k_scale, v_scale,
                    num_splits, chunk, block_n, _NUM_WARPS, num_stages)
