"""Expert: chain speculative verification in two launches, with the vocabulary split over many
programs and one residual row read per request.

The n acceptance tests are independent of each other (each needs only its uniform and the two
probabilities at its draft token), so every program evaluates all of them at once from 3n
scalar loads, and the first failed position j (n when none fails) follows from a min-reduction.
Only row j matters for the draw: the residual max(p_j - q_j, 0) (p_n alone at the bonus
position). Its integer weights are summed exactly, so the inverse CDF splits into a coarse step
over chunk totals and a fine step inside one chunk:

1. `_chunk_weights_kernel`, grid (chunks, batch): every program re-derives j for its request,
   loads its CHUNK tokens of p_j and q_j once (q only when j < n), and writes the int64 total of
   the chunk's residual weights. The programs of all requests stream the needed rows at once, so
   a batch of 32 requests still fills the device.
2. `_draw_kernel`, grid (batch,): one program per request reads its chunk totals (and, only in
   the rare case that they sum to zero, forms the target row's chunk totals itself for the
   fallback), forms T = min(floor(u_n * W), W - 1), finds the chunk whose
   running total first exceeds T by a prefix scan over the totals, reloads that one chunk (its
   bytes were just read by kernel 1), scans its integer weights, and counts the tokens whose
   running sum is at most T: chunk * CHUNK + count is the drawn token. It also writes the token
   row, the number of passed tests and the prefix length.

Integer weights make the sums exact and independent of the summation order, so the chunked draw
returns the same token as a sequential scan. The float-to-int64 conversion is the costliest
instruction per token (16 per clock per SM on sm_90), so the streaming pass does one per token:
the fallback's target weights are not formed there. Nothing is synchronized with the host; grids
and scratch ([batch, chunks] int64) depend on shapes only.

PyTorch is used only to allocate the outputs and the scratch.
"""

import torch
import triton
import triton.language as tl

# Tokens per program of the weight pass and its warps: 16 floats of each row per thread, small
# register footprint, so many programs stay resident per SM and their loads overlap.
_CHUNK = 2048
_CHUNK_WARPS = 4
# The draw program scans one chunk of int64 weights.
_DRAW_WARPS = 4
_WEIGHT_SCALE = 281474976710656.0  # 2^48


@triton.jit
def _test_drafts(ids_ptr, draft_ptr, target_ptr, unif_ptr, b, n_draft,
                 stride_ib, stride_db, stride_dn, stride_tb, stride_tn, stride_ub,
                 N_P2: tl.constexpr):
    """All n acceptance tests of request b at once: (first failed position or n, passed count)."""
    pos = tl.arange(0, N_P2)
    live = pos < n_draft
    ids = tl.load(ids_ptr + b * stride_ib + pos, mask=live, other=0)
    u = tl.load(unif_ptr + b * stride_ub + pos, mask=live, other=0.0)
    p_at = tl.load(target_ptr + b * stride_tb + pos * stride_tn + ids, mask=live, other=0.0)
    q_at = tl.load(draft_ptr + b * stride_db + pos * stride_dn + ids, mask=live, other=0.0)
    scaled = u * q_at.to(tl.float64)
    target = p_at.to(tl.float64)
    passed = live & (scaled < target)
    failed = live & (scaled >= target)
    first_failed = tl.min(tl.where(failed, pos, n_draft), axis=0)
    passed_count = tl.sum(passed.to(tl.int32), axis=0)
    return first_failed, passed_count


@triton.jit
def _chunk_weights_kernel(
    draft_ptr, ids_ptr, target_ptr, unif_ptr, part_res_ptr,
    n_draft, vocab, num_chunks,
    stride_db, stride_dn, stride_ib, stride_tb, stride_tn, stride_ub,
    N_P2: tl.constexpr, CHUNK: tl.constexpr, SCALE: tl.constexpr,
):
    chunk = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    j, _ = _test_drafts(ids_ptr, draft_ptr, target_ptr, unif_ptr, b, n_draft,
                        stride_ib, stride_db, stride_dn, stride_tb, stride_tn, stride_ub, N_P2)
    cols = chunk * CHUNK + tl.arange(0, CHUNK)
    in_row = cols < vocab
    p = tl.load(target_ptr + b * stride_tb + j * stride_tn + cols, mask=in_row, other=0.0)
    # The bonus position (j == n) has no drafter row: its residual is p itself.
    q = tl.load(draft_ptr + b * stride_db + j * stride_dn + cols,
                mask=in_row & (j < n_draft), other=0.0)
    w_res = (tl.maximum(p - q, 0.0) * SCALE).to(tl.int64)
    tl.store(part_res_ptr + b * num_chunks + chunk, tl.sum(w_res, axis=0))


@triton.jit
def _draw_kernel(
    draft_ptr, ids_ptr, target_ptr, unif_ptr, part_res_ptr,
    tokens_ptr, accepted_ptr, emitted_ptr,
    n_draft, vocab, num_chunks,
    stride_db, stride_dn, stride_ib, stride_tb, stride_tn, stride_ub, stride_ob,
    N_P2: tl.constexpr, OUT_P2: tl.constexpr, CHUNKS_P2: tl.constexpr,
    CHUNK: tl.constexpr, SCALE: tl.constexpr,
):
    b = tl.program_id(0).to(tl.int64)
    # The chunk totals do not depend on j: their load is issued first, beside the tests' loads.
    c_idx = tl.arange(0, CHUNKS_P2)
    c_live = c_idx < num_chunks
    parts = tl.load(part_res_ptr + b * num_chunks + c_idx, mask=c_live, other=0)
    u = tl.load(unif_ptr + b * stride_ub + n_draft)
    j, passed_count = _test_drafts(ids_ptr, draft_ptr, target_ptr, unif_ptr, b, n_draft,
                                   stride_ib, stride_db, stride_dn, stride_tb, stride_tn,
                                   stride_ub, N_P2)

    # Coarse step: the chunk totals of the row that is drawn from.
    # A residual of no weight (the drafter covers the target everywhere) falls back to p_j. It
    # does not occur on real rows, so this program forms the target's chunk totals itself, in a
    # loop that runs zero times otherwise.
    has_residual = tl.sum(parts, axis=0) > 0
    target_row = target_ptr + b * stride_tb + j * stride_tn
    fallback_chunks = tl.where(has_residual, 0, num_chunks)
    for c in range(0, fallback_chunks):
        cols_c = c * CHUNK + tl.arange(0, CHUNK)
        p_c = tl.load(target_row + cols_c, mask=cols_c < vocab, other=0.0)
        chunk_total = tl.sum((p_c * SCALE).to(tl.int64), axis=0)
        parts = tl.where(c_idx == c, chunk_total, parts)
    total = tl.sum(parts, axis=0)
    # floor(u * W) with the product rounded to float64 (u * W >= 0, so truncation is floor).
    threshold = (u * total.to(tl.float64)).to(tl.int64)
    threshold = tl.minimum(threshold, total - 1)
    running = tl.cumsum(parts, axis=0)
    chunk = tl.sum((c_live & (running <= threshold)).to(tl.int32), axis=0)
    base = tl.sum(tl.where(c_idx < chunk, parts, 0), axis=0)
    local = threshold - base

    # Fine step: the weights of that one chunk, recomputed exactly as kernel 1 summed them.
    cols = chunk * CHUNK + tl.arange(0, CHUNK)
    in_row = cols < vocab
    p = tl.load(target_row + cols, mask=in_row, other=0.0)
    q = tl.load(draft_ptr + b * stride_db + j * stride_dn + cols,
                mask=in_row & (j < n_draft) & has_residual, other=0.0)
    w = (tl.maximum(p - q, 0.0) * SCALE).to(tl.int64)
    run_w = tl.cumsum(w, axis=0)
    count = tl.sum((in_row & (run_w <= local)).to(tl.int32), axis=0)
    token = chunk * CHUNK + count

    out_pos = tl.arange(0, OUT_P2)
    drafts = tl.load(ids_ptr + b * stride_ib + out_pos, mask=out_pos < n_draft, other=-1)
    row = tl.where(out_pos < j, drafts, -1)
    row = tl.where(out_pos == j, token, row)
    tl.store(tokens_ptr + b * stride_ob + out_pos, row, mask=out_pos <= n_draft)
    tl.store(accepted_ptr + b, passed_count)
    tl.store(emitted_ptr + b, j)


def _check(draft_probs, draft_token_ids, target_probs, uniforms):
    if draft_probs.dim() != 3 or target_probs.dim() != 3:
        raise ValueError("draft_probs and target_probs must be [batch, positions, vocab]")
    batch, n_draft, vocab = draft_probs.shape
    if tuple(target_probs.shape) != (batch, n_draft + 1, vocab):
        raise ValueError("target_probs must be [batch, n_draft + 1, vocab]")
    if tuple(draft_token_ids.shape) != (batch, n_draft) or tuple(uniforms.shape) != (batch, n_draft + 1):
        raise ValueError("draft_token_ids must be [batch, n_draft], uniforms [batch, n_draft + 1]")
    if draft_probs.dtype != torch.float32 or target_probs.dtype != torch.float32:
        raise ValueError("probabilities must be float32")
    if draft_token_ids.dtype != torch.int32 or uniforms.dtype != torch.float64:
        raise ValueError("draft_token_ids must be int32, uniforms float64")
    if (draft_probs.stride(2) != 1 or target_probs.stride(2) != 1 or draft_token_ids.stride(1) != 1
            or uniforms.stride(1) != 1):
        raise ValueError("the last dimension of every input must be contiguous")
    return batch, n_draft, vocab


def run(draft_probs, draft_token_ids, target_probs, uniforms):
    batch, n_draft, vocab = _check(draft_probs, draft_token_ids, target_probs, uniforms)
    device = draft_probs.device
    tokens = torch.empty((batch, n_draft + 1), dtype=torch.int32, device=device)
    accepted = torch.empty((batch,), dtype=torch.int32, device=device)
    emitted = torch.empty((batch,), dtype=torch.int32, device=device)
    if batch == 0:
        return tokens, accepted, emitted
    num_chunks = triton.cdiv(vocab, _CHUNK)
    part_res = torch.empty((batch, num_chunks), dtype=torch.int64, device=device)
    n_p2 = max(2, triton.next_power_of_2(n_draft))
    strides = (draft_probs.stride(0), draft_probs.stride(1), draft_token_ids.stride(0),
               target_probs.stride(0), target_probs.stride(1), uniforms.stride(0))

    _chunk_weights_kernel[(num_chunks, batch)](
        draft_probs, draft_token_ids, target_probs, uniforms, part_res,
        n_draft, vocab, num_chunks, *strides,
        N_P2=n_p2, CHUNK=_CHUNK, SCALE=_WEIGHT_SCALE, num_warps=_CHUNK_WARPS,
    )
    _draw_kernel[(batch,)](
        draft_probs, draft_token_ids, target_probs, uniforms, part_res,
        tokens, accepted, emitted,
        n_draft, vocab, num_chunks, *strides, tokens.stride(0),
        N_P2=n_p2, OUT_P2=max(2, triton.next_power_of_2(n_draft + 1)),
        CHUNKS_P2=max(2, triton.next_power_of_2(num_chunks)),
        CHUNK=_CHUNK, SCALE=_WEIGHT_SCALE, num_warps=_DRAW_WARPS,
    )
    return tokens, accepted, emitted
