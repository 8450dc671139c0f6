"""Expert: packed grammar bitmasks applied at the granularity of the mask word and the 16-byte
vector, one pass over the listed rows only.

One Triton kernel. A program owns WORDS consecutive mask words (32 * WORDS tokens) of one listed
row: it reads the row id from indices, loads its mask words once, and splits every word into
groups of PACK bits, PACK being the number of logits in a 16-byte vector (4 fp32 or 8 bf16). A
group decides its vector as a whole:

* all bits 1 (every token allowed): nothing is loaded or stored;
* all bits 0 (no token allowed): a vector of -inf is stored, the logits are never read;
* mixed: the vector is loaded, the disallowed lanes are replaced by -inf, and it is stored back.

The group masks are constant over each vector, so the loads and stores compile to predicated
128-bit accesses. Words past the end of the mask (logits wider than the mask) load as 0 and mask
their tokens; lanes past the end of the logits row are never touched. Rows that are not listed
are never visited. Grid: (chunks of WORDS words per row, listed rows), from shapes only.
"""

import torch
import triton
import triton.language as tl

# Logits per 16-byte vector, by element size.
_PACK = {4: 4, 2: 8}
_MAX_GRID_Y = 65535


@triton.jit
def _apply_bitmask_kernel(logits_ptr, bitmask_ptr, indices_ptr,
                          vocab, mask_words, logits_stride, bitmask_stride,
                          WORDS: tl.constexpr, PACK: tl.constexpr, GROUPS: tl.constexpr,
                          FULL: tl.constexpr):
    # PACK: logits per 16-byte vector; GROUPS = 32 // PACK vectors per mask word;
    # FULL = 2^PACK - 1, the bits of a vector whose tokens are all allowed.

    chunk = tl.program_id(0)
    slot = tl.program_id(1)
    row = tl.load(indices_ptr + slot).to(tl.int64)

    word = chunk * WORDS + tl.arange(0, WORDS)                                  # [WORDS]
    bits = tl.load(bitmask_ptr + row * bitmask_stride + word, mask=word < mask_words, other=0)

    group = tl.arange(0, GROUPS)                                                # [GROUPS]
    lane = tl.arange(0, PACK)                                                   # [PACK]
    # PACK bits per vector; the arithmetic shift's sign bits are cut off by the and.
    nibble = (bits[:, None] >> (group * PACK)[None, :]) & FULL                  # [WORDS, GROUPS]
    nib = nibble[:, :, None]                                                    # [WORDS, GROUPS, 1]
    col = (word[:, None, None] * 32 + (group * PACK)[None, :, None]
           + lane[None, None, :])                                               # [WORDS, GROUPS, PACK]
    in_row = col < vocab
    allowed = ((nib >> lane[None, None, :]) & 1) != 0
    touched = (nib != FULL) & in_row          # the vector holds at least one disallowed token
    mixed = touched & (nib != 0)              # ... and at least one allowed token to keep

    ptrs = logits_ptr + row * logits_stride + col
    old = tl.load(ptrs, mask=mixed, other=0.0)
    new = tl.where(allowed, old, float("-inf"))
    tl.store(ptrs, new.to(logits_ptr.dtype.element_ty), mask=touched)


def _words_per_program(listed_words):
    """Mask words per program: large chunks when the listed rows hold many words, smaller ones
    so that a single row still spreads over the SMs."""
    if listed_words >= 64 * 132 * 4:
        return 64
    if listed_words >= 32 * 132:
        return 32
    return 16


def run(logits, bitmask, indices):
    assert logits.dim() == 2 and bitmask.dim() == 2 and indices.dim() == 1
    assert logits.shape[0] == bitmask.shape[0]
    assert logits.dtype in (torch.float32, torch.bfloat16) and bitmask.dtype == torch.int32
    assert indices.dtype == torch.int32
    assert logits.stride(1) == 1 and bitmask.stride(1) == 1 and indices.is_contiguous()
    rows = indices.shape[0]
    vocab = logits.shape[1]
    mask_words = bitmask.shape[1]
    assert 1 <= rows <= _MAX_GRID_Y
    if vocab == 0:
        return logits

    pack = _PACK[logits.element_size()]
    row_words = triton.cdiv(vocab, 32)            # words that hold a token of the logits row
    words = _words_per_program(rows * row_words)
    num_warps = max(1, min(4, words // pack))
    grid = (triton.cdiv(row_words, words), rows)
    _apply_bitmask_kernel[grid](logits, bitmask, indices, vocab, mask_words,
                                logits.stride(0), bitmask.stride(0),
                                WORDS=words, PACK=pack, GROUPS=32 // pack,
                                FULL=(1 << pack) - 1, num_warps=num_warps)
    return logits
