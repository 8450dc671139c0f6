"""Anchor: multi-adapter LoRA on cuBLAS-class grouped GEMMs through PyTorch, as a user without
a LoRA kernel writes it.

The tokens are sorted by adapter on the device (argsort; tokens without adapter sort last) and
their rows of x gathered. The shrink and the expand run as one grouped GEMM each
(torch._grouped_mm, groups given by the device-side cumulative token counts, so nothing is read
back to the host and the call can be captured in a graph). The output slices go through one
expand by widening every adapter's up-projection to all S*r intermediate columns, zero outside
each column's own slice. The adapter rows are scattered back and added to base in fp32. When
this torch has no torch._grouped_mm or it refuses the workload's shapes, the products run as
one torch.mm per adapter over the whole batch with the other adapters' rows masked out (still
graph-safe). Which path a shape takes, and why, is printed once.
"""

import sys

import torch

_grouped_by_shape = {}  # (lora_a shape, lora_b shape, T) -> whether torch._grouped_mm serves it


def _say(message):
    print("cublas_grouped: " + message, file=sys.stderr)


def _widened_b(lora_b, slice_offsets, SR):
    # b_wide[a, c, s*r + j] = lora_b[a, c, j] if column c lies in slice s, else 0.
    L, N, r = lora_b.shape
    S = SR // r
    cols = torch.arange(N, device=lora_b.device)
    slice_of_col = (cols[:, None] >= slice_offsets[1:S].long()[None, :]).sum(dim=1)
    in_slice = (slice_of_col[:, None] == torch.arange(S, device=lora_b.device)[None, :])
    return (lora_b[:, :, None, :] * in_slice[None, :, :, None].to(lora_b.dtype)).reshape(L, N, SR)


def _grouped(x, base, lora_a, lora_b, slice_offsets, lora_ids, scale):
    L, SR, _ = lora_a.shape
    key = torch.where(lora_ids < 0, torch.full_like(lora_ids, L), lora_ids).long()
    order = torch.argsort(key, stable=True)
    counts = torch.zeros(L + 1, dtype=torch.long, device=x.device)
    counts.index_add_(0, key, torch.ones_like(key))
    offsets = torch.cumsum(counts[:L], 0).to(torch.int32)  # group ends; no-adapter rows after
    xs = x.index_select(0, order)
    u = torch._grouped_mm(xs, lora_a.transpose(1, 2), offs=offsets)           # [T, S*r]
    u = (u.float() * scale).to(x.dtype)
    b_wide = _widened_b(lora_b, slice_offsets, SR)                            # [L, N, S*r]
    delta = torch._grouped_mm(u, b_wide.transpose(1, 2), offs=offsets)       # [T, N]
    has = (key.index_select(0, order) < L)[:, None]
    # Rows past the last group are not written by the grouped GEMM: select, do not multiply.
    delta = torch.where(has, delta.float(), torch.zeros((), device=x.device))
    out = base.float()
    out.index_add_(0, order, delta)
    return out.to(base.dtype)


def _masked(x, base, lora_a, lora_b, slice_offsets, lora_ids, scale):
    L, SR, _ = lora_a.shape
    b_wide = _widened_b(lora_b, slice_offsets, SR)
    out = base.float()
    for a in range(L):
        u = (torch.mm(x, lora_a[a].t()).float() * scale).to(x.dtype)
        delta = torch.mm(u, b_wide[a].t())
        out = torch.where((lora_ids == a)[:, None], out + delta.float(), out)
    return out.to(base.dtype)


def run(x, base, lora_a, lora_b, slice_offsets, lora_ids, scale):
    shape = (tuple(lora_a.shape), tuple(lora_b.shape), x.shape[0])
    if shape not in _grouped_by_shape:
        if not hasattr(torch, "_grouped_mm"):
            _grouped_by_shape[shape] = False
            _say("this torch has no torch._grouped_mm; one masked torch.mm per adapter")
        else:
            try:
                out = _grouped(x, base, lora_a, lora_b, slice_offsets, lora_ids, scale)
                _grouped_by_shape[shape] = True
                _say(f"torch._grouped_mm for adapters {shape}")
                return out
            except RuntimeError as error:
                _grouped_by_shape[shape] = False
                _say(f"torch._grouped_mm refused {shape} ({error}); one masked torch.mm per adapter")
    if _grouped_by_shape[shape]:
        return _grouped(x, base, lora_a, lora_b, slice_offsets, lora_ids, scale)
    return _masked(x, base, lora_a, lora_b, slice_offsets, lora_ids, scale)
