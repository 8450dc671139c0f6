"""Eager PyTorch definition of applying packed grammar bitmasks to logits, in place.

The selected rows' mask words are unpacked into one bit per token (a shift and an and over int64
copies of the words, 32 values per word), turned into a boolean mask as wide as the logits row
(cut at the row's end, or padded with "not allowed" where the logits are wider than the mask),
and the gathered rows are filled with -inf where a token is not allowed and written back.
"""

import torch


def run(logits, bitmask, indices):
    rows = indices.long()
    count = rows.shape[0]
    vocab = logits.shape[1]
    words = bitmask.shape[1]
    device = logits.device

    shifts = torch.arange(32, dtype=torch.int64, device=device)
    bits = (bitmask[rows].long()[:, :, None] >> shifts) & 1          # [count, words, 32]
    allowed = bits.reshape(count, words * 32) == 1
    if words * 32 >= vocab:
        allowed = allowed[:, :vocab]
    else:
        # Tokens past the mask's last word are not allowed.
        missing = torch.zeros((count, vocab - words * 32), dtype=torch.bool, device=device)
        allowed = torch.cat([allowed, missing], dim=1)

    selected = logits[rows]
    selected.masked_fill_(~allowed, float("-inf"))
    logits[rows] = selected
    return logits
