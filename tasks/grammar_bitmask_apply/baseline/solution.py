"""Baseline: one Triton kernel over the listed rows, token by token.

A program takes BLOCK consecutive logits of one listed row, loads them, looks up each token's
mask word (col // 32) and bit (col % 32), replaces the disallowed ones by -inf and stores the
whole block back. Tokens past the mask's last word are disallowed. Every logit of a listed row is
read and written once, whatever its bit.
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024
_MAX_GRID_Y = 65535


@triton.jit
def _mask_rows_kernel(logits_ptr, bitmask_ptr, indices_ptr,
                      vocab, mask_words, logits_stride, bitmask_stride,
                      BLOCK: tl.constexpr):
    block = tl.program_id(0)
    slot = tl.program_id(1)
    row = tl.load(indices_ptr + slot).to(tl.int64)

    col = block * BLOCK + tl.arange(0, BLOCK)
    in_row = col < vocab
    word_index = col // 32
    word = tl.load(bitmask_ptr + row * bitmask_stride + word_index,
                   mask=in_row & (word_index < mask_words), other=0)
    allowed = ((word >> (col % 32)) & 1) != 0

    ptrs = logits_ptr + row * logits_stride + col
    x = tl.load(ptrs, mask=in_row, other=0.0)
    y = tl.where(allowed, x, float("-inf"))
    tl.store(ptrs, y.to(logits_ptr.dtype.element_ty), mask=in_row)


def run(logits, bitmask, indices):
    assert logits.dim() == 2 and bitmask.dim() == 2 and indices.dim() == 1
    assert logits.dtype in (torch.float32, torch.bfloat16) and bitmask.dtype == torch.int32
    assert logits.stride(1) == 1 and bitmask.stride(1) == 1
    rows = indices.shape[0]
    vocab = logits.shape[1]
    assert 1 <= rows <= _MAX_GRID_Y
    grid = (triton.cdiv(vocab, BLOCK), rows)
    _mask_rows_kernel[grid](logits, bitmask, indices, vocab, bitmask.shape[1],
                            logits.stride(0), bitmask.stride(0), BLOCK=BLOCK, num_warps=4)
    return logits
