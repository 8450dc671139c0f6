"""Anchor: xgrammar's Triton kernel for applying a token bitmask in place
(apply_token_bitmask_inplace_triton, the path xgrammar.apply_token_bitmask_inplace takes for CUDA
tensors, and the one vLLM and SGLang reach through it). It takes the same packed int32 rows and
the same row list. xgrammar masks only the first min(vocab, 32 * mask_words) tokens; where the
logits are wider than the mask (quick workloads only), the listed rows' remaining tokens are set
to -inf afterwards so that the anchor computes the task's semantics. Needs the xgrammar package
on the device, imported on the first call so that the anchor loads where the package is absent."""

import torch


def run(logits, bitmask, indices):
    from xgrammar.kernels.apply_token_bitmask_inplace_triton import (
        apply_token_bitmask_inplace_triton,
    )

    apply_token_bitmask_inplace_triton(logits, bitmask, indices=indices)
    covered = bitmask.shape[1] * 32
    if covered < logits.shape[1]:
        logits[indices.long(), covered:] = float("-inf")
    return logits
