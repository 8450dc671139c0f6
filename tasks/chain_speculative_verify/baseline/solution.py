"""Baseline: one program per request that walks the positions, then sums and scans one row.

The first correct kernel a competent engineer writes from the task's definition, without the
split-vocabulary design. Program b:

    tests       positions 0 .. n-1 in a loop: load the draft token, its two probabilities and
                the uniform; the first failure fixes j, every pass is counted
    pass 1      over row j in BLOCK tiles: the total W of the integer residual weights (and of
                the target weights, for the fallback when the residual weighs nothing)
    pass 2      over row j again: a running int64 prefix per tile, counting the tokens whose
                prefix is at most T = min(floor(u_n * W), W - 1); the count is the drawn token

Each request's row is streamed twice by a single program, so the kernel runs `batch` programs
(32 to 128 here) on a 132-SM device and reads 1.5x to 2x the bytes it needs.

PyTorch is used only to allocate the outputs.
"""

import torch
import triton
import triton.language as tl

_BLOCK = 2048
_WEIGHT_SCALE = 281474976710656.0  # 2^48


@triton.jit
def _verify_kernel(
    draft_ptr, ids_ptr, target_ptr, unif_ptr, tokens_ptr, accepted_ptr, emitted_ptr,
    n_draft, vocab,
    stride_db, stride_dn, stride_ib, stride_tb, stride_tn, stride_ub, stride_ob,
    BLOCK: tl.constexpr, OUT_P2: tl.constexpr, SCALE: tl.constexpr,
):
    b = tl.program_id(0).to(tl.int64)

    j = tl.zeros([], dtype=tl.int32) + n_draft
    passed_count = tl.zeros([], dtype=tl.int32)
    for i in range(0, n_draft):
        d = tl.load(ids_ptr + b * stride_ib + i)
        p_at = tl.load(target_ptr + b * stride_tb + i * stride_tn + d).to(tl.float64)
        q_at = tl.load(draft_ptr + b * stride_db + i * stride_dn + d).to(tl.float64)
        u = tl.load(unif_ptr + b * stride_ub + i)
        scaled = u * q_at
        passed_count += (scaled < p_at).to(tl.int32)
        j = tl.where((scaled >= p_at) & (j == n_draft), i, j)

    target_row = target_ptr + b * stride_tb + j * stride_tn
    draft_row = draft_ptr + b * stride_db + j * stride_dn
    has_draft = j < n_draft
    offs = tl.arange(0, BLOCK)

    res_acc = tl.zeros([BLOCK], dtype=tl.int64)
    tgt_acc = tl.zeros([BLOCK], dtype=tl.int64)
    for start in range(0, vocab, BLOCK):
        cols = start + offs
        in_row = cols < vocab
        p = tl.load(target_row + cols, mask=in_row, other=0.0)
        q = tl.load(draft_row + cols, mask=in_row & has_draft, other=0.0)
        res_acc += (tl.maximum(p - q, 0.0) * SCALE).to(tl.int64)
        tgt_acc += (p * SCALE).to(tl.int64)
    res_total = tl.sum(res_acc, axis=0)
    use_residual = res_total > 0
    total = tl.where(use_residual, res_total, tl.sum(tgt_acc, axis=0))
    u_draw = tl.load(unif_ptr + b * stride_ub + n_draft)
    threshold = tl.minimum((u_draw * total.to(tl.float64)).to(tl.int64), total - 1)

    carry = tl.zeros([], dtype=tl.int64)
    count = tl.zeros([], dtype=tl.int32)
    for start in range(0, vocab, BLOCK):
        cols = start + offs
        in_row = cols < vocab
        p = tl.load(target_row + cols, mask=in_row, other=0.0)
        q = tl.load(draft_row + cols, mask=in_row & has_draft & use_residual, other=0.0)
        w = (tl.maximum(p - q, 0.0) * SCALE).to(tl.int64)
        prefix = carry + tl.cumsum(w, axis=0)
        count += tl.sum((in_row & (prefix <= threshold)).to(tl.int32), axis=0)
        carry += tl.sum(w, axis=0)

    out_pos = tl.arange(0, OUT_P2)
    drafts = tl.load(ids_ptr + b * stride_ib + out_pos, mask=out_pos < n_draft, other=-1)
    row = tl.where(out_pos < j, drafts, -1)
    row = tl.where(out_pos == j, count, row)
    tl.store(tokens_ptr + b * stride_ob + out_pos, row, mask=out_pos <= n_draft)
    tl.store(accepted_ptr + b, passed_count)
    tl.store(emitted_ptr + b, j)


def run(draft_probs, draft_token_ids, target_probs, uniforms):
    batch, n_draft, vocab = draft_probs.shape
    if tuple(target_probs.shape) != (batch, n_draft + 1, vocab):
        raise ValueError("target_probs must be [batch, n_draft + 1, vocab]")
    if draft_probs.dtype != torch.float32 or target_probs.dtype != torch.float32:
        raise ValueError("probabilities must be float32")
    if draft_token_ids.dtype != torch.int32 or uniforms.dtype != torch.float64:
        raise ValueError("draft_token_ids must be int32, uniforms float64")
    if (draft_probs.stride(2) != 1 or target_probs.stride(2) != 1 or draft_token_ids.stride(1) != 1
            or uniforms.stride(1) != 1):
        raise ValueError("the last dimension of every input must be contiguous")
    device = draft_probs.device
    tokens = torch.empty((batch, n_draft + 1), dtype=torch.int32, device=device)
    accepted = torch.empty((batch,), dtype=torch.int32, device=device)
    emitted = torch.empty((batch,), dtype=torch.int32, device=device)
    if batch == 0:
        return tokens, accepted, emitted
    _verify_kernel[(batch,)](
        draft_probs, draft_token_ids, target_probs, uniforms, tokens, accepted, emitted,
        n_draft, vocab,
        draft_probs.stride(0), draft_probs.stride(1), draft_token_ids.stride(0),
        target_probs.stride(0), target_probs.stride(1), uniforms.stride(0), tokens.stride(0),
        BLOCK=_BLOCK, OUT_P2=max(2, triton.next_power_of_2(n_draft + 1)), SCALE=_WEIGHT_SCALE,
        num_warps=8,
    )
    return tokens, accepted, emitted
