"""Multi-adapter LoRA, written the direct way: a loop over the adapters.

For every adapter the whole batch goes through its two low-rank products and the rows of the
tokens that use it are kept. The output slices are handled with one product per adapter by
widening its up-projection to all S * r intermediate columns, zero outside each column's own
slice. The token-to-adapter map and the slice offsets stay on the device, so the call needs no
host round trip and can be captured in a CUDA graph.
"""

import torch


def run(x, base, lora_a, lora_b, slice_offsets, lora_ids, scale):
    T, H = x.shape
    L, SR, _ = lora_a.shape
    N, r = lora_b.shape[1], lora_b.shape[2]
    S = SR // r
    device = x.device

    # slice_of_col[c] = s for slice_offsets[s] <= c < slice_offsets[s + 1].
    cols = torch.arange(N, device=device)
    slice_of_col = (cols[:, None] >= slice_offsets[1:S].long()[None, :]).sum(dim=1)
    in_slice = (slice_of_col[:, None] == torch.arange(S, device=device)[None, :]).to(lora_b.dtype)

    out = base.float()
    for a in range(L):
        uses = (lora_ids == a)[:, None]
        # The rank-S*r activations, rounded to the activation dtype like a linear layer's output.
        u = (x @ lora_a[a].t()).float().mul(scale).to(x.dtype)               # [T, S*r]
        b_wide = (lora_b[a][:, None, :] * in_slice[:, :, None]).reshape(N, SR)  # [N, S*r]
        delta = u @ b_wide.t()                                                # [T, N]
        out = torch.where(uses, out + delta.float(), out)
    return out.to(base.dtype)
