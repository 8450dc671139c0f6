"""Expert: cascade decode attention. The shared prefix is attended once for all requests as one
multi-query product, each request's own tokens by paged decode, and the two softmax states are
merged exactly.

Softmax attention over a union of disjoint token sets is the combination of the per-set results,
each weighted by its share of the total exponential mass: with o_A, lse_A over set A and o_B,
lse_B over set B, o = (2^lse_A o_A + 2^lse_B o_B) / (2^lse_A + 2^lse_B) (log2 units here). So the
prefix part needs no request-specific data beyond the query, and all batch x G query rows of a KV
head (G = h_q / h_kv) can be scored against one stream of the prefix's K and V. Kernels per call:

1. `_prefix_kernel`, grid (row tiles, prefix splits, h_kv). A program stacks BLOCK_M query rows
   (request r // G, query head kv_head * G + r % G) into one tile and walks one slice of the
   prefix BLOCK_N tokens at a time through prefix_block_table, computing S = Q K^T and O += P V
   with tl.dot: a prefill-shaped product, each K/V block loaded once for BLOCK_M rows. The row
   tile is the fastest grid dimension, so the tiles that read one slice run side by side and the
   prefix leaves HBM once. It writes each row's normalized partial output and log2-sum-exp into
   slot `split` of the partial-state scratch.
2. `_suffix_kernel`, grid (suffix splits, h_kv, batch): paged decode over the request's own
   tokens, the G query heads of a KV head packed into one 16-row tile. With one suffix split (the
   batch alone fills the device) its epilogue merges the prefix slots into its own state and
   writes o: the merge costs no extra launch and no suffix partial in memory. With several splits
   it writes its partial state into the slots after the prefix's.
3. `_combine_kernel` (several suffix splits only), grid (batch * h_q, head_dim / BLOCK_D): merges
   the prefix slots and the suffix slots that hold tokens.

Split counts and chunk sizes come from shapes, prefix_len (a per-workload constant) and the SM
count, never from tensor values, so the call is graph-stable while suffix lengths and pages
change. Every softmax is fp32 in the log2 domain (exp2, log2(e) folded into the score scale).

PyTorch is used only to allocate the output and the partial-state scratch.
"""

import torch
import triton
import triton.language as tl

_LOG2_E = 1.4426950408889634

# Prefix kernel: BLOCK_M stacked query rows (128 with 8 warps, or 64 with 4 warps when the
# batch has no more rows per KV head), BLOCK_N prefix tokens per step, 3 pipeline stages of K and
# V blocks. Slices of the prefix are planned for one wave of one program per SM.
_PREFIX_BLOCK_N = 64
_PREFIX_STAGES = 3
_PREFIX_MIN_CHUNK = 256
_PREFIX_MAX_SPLITS = 32
# Suffix kernel: the paged-decode tile of G query rows padded to 16. One split when the batch
# gives at least _FUSED_PROGRAMS_PER_SM (request, KV head) programs per SM; otherwise enough
# equal slices of the suffix capacity to reach _SUFFIX_PROGRAMS_PER_SM.
_SUFFIX_BLOCK_N = 64
_SUFFIX_WARPS = 4
_SUFFIX_STAGES = 3
_FUSED_PROGRAMS_PER_SM = 2
_SUFFIX_PROGRAMS_PER_SM = 8
_SUFFIX_MIN_CHUNK = 256
_SUFFIX_MAX_SPLITS = 16
# The combine kernel reads all slots of one row slice in one load of SLOTS_PAD x BLOCK_D values.
_COMBINE_TILE = 4096


@triton.jit
def _prefix_kernel(
    q_ptr, k_ptr, v_ptr, prefix_table_ptr, part_o_ptr, part_lse_ptr,
    score_scale_log2, prefix_len, chunk, num_rows, num_slots, h_q,
    stride_qb, stride_qh,
    stride_kp, stride_ks, stride_kh,
    stride_vp, stride_vs, stride_vh,
    GROUP: tl.constexpr, PAGE_SIZE: tl.constexpr, HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    tile = tl.program_id(0)
    split = tl.program_id(1)
    kv_head = tl.program_id(2)

    # Row r of this KV head's stacked queries: request r // GROUP, query head
    # kv_head * GROUP + r % GROUP. Rows past batch * GROUP are zero queries, never stored.
    r = tile * BLOCK_M + tl.arange(0, BLOCK_M)
    r_ok = r < num_rows
    request = r // GROUP
    head = kv_head * GROUP + r % GROUP
    dims = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + request[:, None] * stride_qb + head[:, None] * stride_qh + dims[None, :],
                mask=r_ok[:, None], other=0.0)

    # The plan makes every slice start below prefix_len, so each step's first token is valid
    # and every row's running max is finite after the first step.
    start = split * chunk
    end = tl.minimum(start + chunk, prefix_len)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    k_head = k_ptr + kv_head * stride_kh
    v_head = v_ptr + kv_head * stride_vh
    for n0 in range(start, end, BLOCK_N):
        tokens = n0 + tl.arange(0, BLOCK_N)
        valid = tokens < end
        # Token t of the prefix is slot t % PAGE_SIZE of page prefix_block_table[t // PAGE_SIZE].
        page = tl.load(prefix_table_ptr + tokens // PAGE_SIZE, mask=valid, other=0).to(tl.int64)
        slot = (tokens % PAGE_SIZE).to(tl.int64)
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
        m_i = m_new

    out = acc / l_i[:, None]
    lse = m_i + tl.log2(l_i)
    part_row = (request * h_q + head) * num_slots + split
    tl.store(part_o_ptr + part_row[:, None] * HEAD_DIM + dims[None, :], out, mask=r_ok[:, None])
    tl.store(part_lse_ptr + part_row, lse, mask=r_ok)


@triton.jit
def _suffix_kernel(
    q_ptr, k_ptr, v_ptr, suffix_table_ptr, suffix_lens_ptr, o_ptr, part_o_ptr, part_lse_ptr,
    score_scale_log2, chunk, num_prefix_slots, num_slots, h_q,
    stride_qb, stride_qh,
    stride_kp, stride_ks, stride_kh,
    stride_vp, stride_vs, stride_vh,
    stride_tb, stride_ob, stride_oh,
    GROUP: tl.constexpr, GROUP_PAD: tl.constexpr, PAGE_SIZE: tl.constexpr,
    HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, PREFIX_SLOTS_PAD: tl.constexpr,
    FUSED_MERGE: tl.constexpr,
):
    split = tl.program_id(0)
    kv_head = tl.program_id(1)
    b = tl.program_id(2)

    suffix_len = tl.load(suffix_lens_ptr + b)
    start = split * chunk
    end = tl.minimum(start + chunk, suffix_len)

    rows = tl.arange(0, GROUP_PAD)
    row_ok = rows < GROUP
    heads = kv_head * GROUP + rows
    dims = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + b * stride_qb + heads[:, None] * stride_qh + dims[None, :],
                mask=row_ok[:, None], other=0.0)

    # An empty slice (past suffix_len, or suffix_len == 0) runs no step and keeps m = -inf, l = 0.
    m_i = tl.full([GROUP_PAD], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([GROUP_PAD], dtype=tl.float32)
    acc = tl.zeros([GROUP_PAD, HEAD_DIM], dtype=tl.float32)
    k_head = k_ptr + kv_head * stride_kh
    v_head = v_ptr + kv_head * stride_vh
    table = suffix_table_ptr + b * stride_tb
    for n0 in range(start, end, BLOCK_N):
        tokens = n0 + tl.arange(0, BLOCK_N)
        valid = tokens < end
        page = tl.load(table + tokens // PAGE_SIZE, mask=valid, other=0).to(tl.int64)
        slot = (tokens % PAGE_SIZE).to(tl.int64)
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
        m_i = m_new

    part_rows = (b * h_q + heads) * num_slots
    if FUSED_MERGE:
        # The whole suffix is in this program: merge it with the prefix slots of the same rows.
        # Suffix state: mass 2^m l, weighted sum 2^m acc. Prefix slot s: mass 2^lse_s, weighted
        # sum 2^lse_s o_s. Every exponent is taken relative to top = max(m, max_s lse_s), which
        # is finite because the prefix holds at least one token.
        slots = tl.arange(0, PREFIX_SLOTS_PAD)
        slot_ok = row_ok[:, None] & (slots[None, :] < num_prefix_slots)
        lse_all = tl.load(part_lse_ptr + part_rows[:, None] + slots[None, :], mask=slot_ok,
                          other=float("-inf"))
        top = tl.maximum(tl.max(lse_all, axis=1), m_i)
        top = tl.where(row_ok, top, 0.0)
        w_suffix = tl.exp2(m_i - top)  # 0 for an empty suffix
        num = acc * w_suffix[:, None]
        den = l_i * w_suffix + tl.sum(tl.where(slot_ok, tl.exp2(lse_all - top[:, None]), 0.0),
                                      axis=1)
        for s_idx in range(0, num_prefix_slots):
            lse_s = tl.load(part_lse_ptr + part_rows + s_idx, mask=row_ok, other=float("-inf"))
            w = tl.exp2(lse_s - top)
            part = tl.load(part_o_ptr + (part_rows + s_idx)[:, None] * HEAD_DIM + dims[None, :],
                           mask=row_ok[:, None], other=0.0)
            num += w[:, None] * part
        den = tl.where(row_ok, den, 1.0)
        out = num / den[:, None]
        tl.store(o_ptr + b * stride_ob + heads[:, None] * stride_oh + dims[None, :],
                 out.to(o_ptr.dtype.element_ty), mask=row_ok[:, None])
    else:
        # Slices with no token write nothing; the combine reads suffix slot s of request b only
        # when s * chunk < suffix_lens[b], exactly the slices that stored here.
        has_tokens = start < suffix_len
        l_safe = tl.where(l_i > 0.0, l_i, 1.0)
        out = acc / l_safe[:, None]
        lse = m_i + tl.log2(l_safe)
        slot_row = part_rows + num_prefix_slots + split
        tl.store(part_o_ptr + slot_row[:, None] * HEAD_DIM + dims[None, :], out,
                 mask=row_ok[:, None] & has_tokens)
        tl.store(part_lse_ptr + slot_row, lse, mask=row_ok & has_tokens)


@triton.jit
def _combine_kernel(
    part_o_ptr, part_lse_ptr, suffix_lens_ptr, o_ptr,
    chunk, num_prefix_slots, num_slots, h_q,
    stride_ob, stride_oh,
    HEAD_DIM: tl.constexpr, SLOTS_PAD: tl.constexpr, BLOCK_D: tl.constexpr,
):
    row = tl.program_id(0)  # b * h_q + query head
    d_block = tl.program_id(1)
    b = row // h_q
    head = row % h_q

    # The prefix slots always hold tokens; the suffix slots follow them, the first
    # ceil(suffix_len / chunk) of them used.
    suffix_len = tl.load(suffix_lens_ptr + b)
    used = num_prefix_slots + (suffix_len + chunk - 1) // chunk
    slots = tl.arange(0, SLOTS_PAD)
    ok = slots < used
    lse = tl.load(part_lse_ptr + row * num_slots + slots, mask=ok, other=float("-inf"))
    top = tl.max(lse, axis=0)
    weight = tl.where(ok, tl.exp2(lse - top), 0.0)

    dims = d_block * BLOCK_D + tl.arange(0, BLOCK_D)
    parts = tl.load(part_o_ptr + (row * num_slots + slots)[:, None] * HEAD_DIM + dims[None, :],
                    mask=ok[:, None], other=0.0)
    out = tl.sum(weight[:, None] * parts, axis=0) / tl.sum(weight, axis=0)
    tl.store(o_ptr + b * stride_ob + head * stride_oh + dims, out.to(o_ptr.dtype.element_ty))


def _plan_prefix(num_rows, block_m, h_kv, prefix_len, num_sms):
    """(num_splits, chunk) for the prefix from shapes and prefix_len: as many equal slices as keep
    the row tiles x KV heads x slices programs within one wave of one program per SM."""
    programs = triton.cdiv(num_rows, block_m) * h_kv
    wanted = max(1, num_sms // programs)
    most = max(1, triton.cdiv(prefix_len, _PREFIX_MIN_CHUNK))
    splits = min(wanted, most, _PREFIX_MAX_SPLITS)
    chunk = triton.cdiv(triton.cdiv(prefix_len, splits), _PREFIX_BLOCK_N) * _PREFIX_BLOCK_N
    return triton.cdiv(prefix_len, chunk), chunk


def _plan_suffix(batch, h_kv, capacity, num_sms):
    """(num_splits, chunk) for the requests' own tokens from shapes only: one split when the
    (request, KV head) programs already fill the device, else equal slices of the capacity."""
    programs = batch * h_kv
    if programs >= _FUSED_PROGRAMS_PER_SM * num_sms:
        return 1, capacity
    wanted = triton.cdiv(_SUFFIX_PROGRAMS_PER_SM * num_sms, programs)
    most = max(1, triton.cdiv(capacity, _SUFFIX_MIN_CHUNK))
    splits = min(wanted, most, _SUFFIX_MAX_SPLITS)
    chunk = triton.cdiv(triton.cdiv(capacity, splits), _SUFFIX_BLOCK_N) * _SUFFIX_BLOCK_N
    return triton.cdiv(capacity, chunk), chunk


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
    prefix_len = int(prefix_len)
    if not 1 <= prefix_len <= prefix_block_table.shape[0] * page_size:
        raise ValueError("prefix_len must be in [1, len(prefix_block_table) * page_size]")
    group = h_q // h_kv
    device = q.device
    num_sms = torch.cuda.get_device_properties(device).multi_processor_count

    num_rows = batch * group
    if num_rows <= 64:
        block_m, prefix_warps = 64, 4
    else:
        block_m, prefix_warps = 128, 8
    prefix_splits, prefix_chunk = _plan_prefix(num_rows, block_m, h_kv, prefix_len, num_sms)
    capacity = suffix_block_table.shape[1] * page_size
    suffix_splits, suffix_chunk = _plan_suffix(batch, h_kv, capacity, num_sms)
    fused = suffix_splits == 1
    num_slots = prefix_splits + (0 if fused else suffix_splits)

    out = torch.empty((batch, h_q, head_dim), dtype=q.dtype, device=device)
    part_o = torch.empty((batch * h_q, num_slots, head_dim), dtype=torch.float32, device=device)
    part_lse = torch.empty((batch * h_q, num_slots), dtype=torch.float32, device=device)
    score_scale_log2 = float(sm_scale) * _LOG2_E

    _prefix_kernel[(triton.cdiv(num_rows, block_m), prefix_splits, h_kv)](
        q, k_cache, v_cache, prefix_block_table, part_o, part_lse,
        score_scale_log2, prefix_len, prefix_chunk, num_rows, num_slots, h_q,
        q.stride(0), q.stride(1),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        GROUP=group, PAGE_SIZE=page_size, HEAD_DIM=head_dim,
        BLOCK_M=block_m, BLOCK_N=_PREFIX_BLOCK_N,
        num_warps=prefix_warps, num_stages=_PREFIX_STAGES,
    )
    _suffix_kernel[(suffix_splits, h_kv, batch)](
        q, k_cache, v_cache, suffix_block_table, suffix_lens, out, part_o, part_lse,
        score_scale_log2, suffix_chunk, prefix_splits, num_slots, h_q,
        q.stride(0), q.stride(1),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        suffix_block_table.stride(0), out.stride(0), out.stride(1),
        GROUP=group, GROUP_PAD=max(16, triton.next_power_of_2(group)), PAGE_SIZE=page_size,
        HEAD_DIM=head_dim, BLOCK_N=_SUFFIX_BLOCK_N,
        PREFIX_SLOTS_PAD=max(2, triton.next_power_of_2(prefix_splits)), FUSED_MERGE=fused,
        num_warps=_SUFFIX_WARPS, num_stages=_SUFFIX_STAGES,
    )
    if not fused:
        slots_pad = triton.next_power_of_2(num_slots)
        block_d = max(16, min(head_dim, _COMBINE_TILE // slots_pad))
        _combine_kernel[(batch * h_q, head_dim // block_d)](
            part_o, part_lse, suffix_lens, out,
            suffix_chunk, prefix_splits, num_slots, h_q,
            out.stride(0), out.stride(1),
            HEAD_DIM=head_dim, SLOTS_PAD=slots_pad, BLOCK_D=block_d,
            num_warps=4,
        )
    return out
