"""Inputs of one grammar-mask application: a batch of logits, the packed token bitmasks a grammar
engine produced for it, and the list of rows that are under a grammar.

A constrained row is in one of two grammar states. In a structural state (between JSON values, or
where a key or a literal must follow) only a small fraction of the vocabulary may come next; in
an open state (inside a JSON string) almost every token may. A row's allowed tokens are drawn
independently with its state's probability, which scatters them over the vocabulary as byte-pair
token ids scatter. Ids at or past the tokenizer's last token (the padding of the model's output
layer) are never allowed; bits past the end of the logits row, in the last word, are noise that
must not matter. Rows that are not in the list hold the stale masks of earlier steps.

Every random value comes from one torch.Generator seeded with config["seed"] on config["device"],
and only elementwise operations and the generator's own draws are used, so two processes with
the same config build identical inputs.
"""

import torch

LOGIT_STD = 2.0
DTYPES = {"fp32": (torch.float32, 4), "bf16": (torch.bfloat16, 2)}


def evenly_spaced(count, low, high):
    """count probabilities from low to high, evenly spaced; their mean is (low + high) / 2."""
    if count == 1:
        return [(low + high) / 2]
    return [low + (high - low) * i / (count - 1) for i in range(count)]


def pack_bits(allowed):
    """bool [rows, 32 * words] -> int32 [rows, words]: bit j of word w is token 32 * w + j."""
    rows, bits = allowed.shape
    weights = torch.ones(32, dtype=torch.int64, device=allowed.device) << torch.arange(
        32, dtype=torch.int64, device=allowed.device)
    words = (allowed.view(rows, bits // 32, 32).to(torch.int64) * weights).sum(dim=-1)
    # Reinterpret the unsigned 32-bit value as two's complement int32.
    words = torch.where(words >= 2**31, words - 2**32, words)
    return words.to(torch.int32)


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    batch = int(config["batch"])
    vocab = int(config["vocab"])
    words = int(config["mask_words"])
    dtype_name = str(config["dtype"])
    elem_bytes = int(config["elem_bytes"])
    rows = int(config["rows"])
    open_rows = int(config["open_rows"])
    tokens = int(config["tokens"])
    allowed_lo = float(config["allowed_lo"])
    allowed_hi = float(config["allowed_hi"])
    open_lo = float(config["open_lo"])
    open_hi = float(config["open_hi"])
    dtype, size = DTYPES[dtype_name]
    if size != elem_bytes:
        raise ValueError(f"elem_bytes {elem_bytes} does not match dtype {dtype_name}")
    if not 1 <= rows <= batch or not 0 <= open_rows <= rows:
        raise ValueError("need 1 <= rows <= batch and 0 <= open_rows <= rows")
    if not 0 < tokens <= vocab:
        raise ValueError("the tokenizer's tokens must fit in the vocabulary")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    logits = torch.randn((batch, vocab), generator=gen, dtype=torch.float32, device=device)
    logits = logits.mul_(LOGIT_STD).to(dtype)

    # The constrained rows: a random subset of the batch, in increasing order.
    if rows == batch:
        indices = torch.arange(batch, dtype=torch.int64, device=device)
    else:
        pick = torch.randperm(batch, generator=gen, device=device)[:rows]
        indices = torch.sort(pick).values

    # Allowed probability of every constrained row: the structural rows' probabilities evenly
    # spaced over [allowed_lo, allowed_hi], the open rows' over [open_lo, open_hi], dealt to the
    # constrained rows in a random order.
    per_row = evenly_spaced(rows - open_rows, allowed_lo, allowed_hi) if rows > open_rows else []
    per_row += evenly_spaced(open_rows, open_lo, open_hi) if open_rows else []
    order = torch.randperm(rows, generator=gen, device=device)
    constrained_p = torch.tensor(per_row, dtype=torch.float32, device=device)[order]
    # Rows outside the list keep an earlier step's mask: structural or open, at random.
    stale_open = torch.rand((batch,), generator=gen, device=device) < 0.5
    stale_u = torch.rand((batch,), generator=gen, device=device)
    stale_p = torch.where(stale_open, open_lo + (open_hi - open_lo) * stale_u,
                          allowed_lo + (allowed_hi - allowed_lo) * stale_u)
    row_p = stale_p.clone()
    row_p[indices] = constrained_p

    bits = 32 * words
    draw = torch.rand((batch, bits), generator=gen, dtype=torch.float32, device=device)
    allowed = draw < row_p[:, None]
    column = torch.arange(bits, device=device)[None, :]
    # Ids past the tokenizer (inside the logits row) are never allowed; bits past the logits row
    # are noise.
    noise = torch.rand((batch, bits), generator=gen, dtype=torch.float32, device=device) < 0.5
    allowed = torch.where(column >= vocab, noise, allowed & (column < tokens))
    bitmask = pack_bits(allowed)

    return [logits.contiguous(), bitmask.contiguous(), indices.to(torch.int32).contiguous()]
