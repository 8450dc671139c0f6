"""Eager PyTorch definition of the MoE permutation to expert-major order and the weighted
un-permutation (combine).

The slots (token, choice) are sorted by expert with a stable argsort, so the slots of one expert
keep token order; the per-expert counts come from index_add_, the padded offsets from a cumsum.
Every position is computed on the device: the call never reads a count back to the host, and
the permuted buffer has a fixed, worst-case number of rows.
"""

import torch


def run(x, topk_ids, topk_weights, expert_out, x_perm, num_experts, align):
    tokens, top_k = topk_ids.shape
    slots = tokens * top_k
    rows = x_perm.shape[0]
    device = topk_ids.device

    ids = topk_ids.reshape(-1).long()
    local = (ids >= 0) & (ids < num_experts)
    # Dropped slots (experts of other ranks) get the key num_experts and sort after every expert.
    key = torch.where(local, ids, torch.full_like(ids, num_experts))
    order = torch.argsort(key, stable=True)          # slot ids, expert-major, token order within
    sorted_key = key[order]
    valid = sorted_key < num_experts

    counts = torch.zeros(num_experts + 1, dtype=torch.long, device=device)
    counts.index_add_(0, key, torch.ones_like(key))
    counts = counts[:num_experts]
    padded = (counts + align - 1) // align * align
    offsets = torch.zeros(num_experts + 1, dtype=torch.long, device=device)
    offsets[1:] = torch.cumsum(padded, 0)
    first_sorted = torch.cumsum(counts, 0) - counts  # where each expert starts in `order`

    expert = sorted_key.clamp(max=num_experts - 1)
    rank = torch.arange(slots, device=device) - first_sorted[expert]
    dest = offsets[expert] + rank                    # permuted row of each sorted slot

    # Inverse map: the permuted row of slot (t, j), -1 for a dropped slot.
    inverse = torch.full((slots,), -1, dtype=torch.long, device=device)
    inverse[order] = torch.where(valid, dest, torch.full_like(dest, -1))

    # The slot held by each permuted row; padding rows and rows past the last expert hold -1.
    # Dropped slots are written to an extra entry that is cut off.
    row_slot = torch.full((rows + 1,), -1, dtype=torch.long, device=device)
    row_slot[torch.where(valid, dest, torch.full_like(dest, rows))] = order
    sorted_slot_ids = row_slot[:rows]

    # Permuted activations: each local slot's token row goes to its permuted row. Dropped slots
    # read token 0 and land on the last row, which they cannot reach otherwise (with a dropped
    # slot the used rows end before it); its previous content is put back.
    source = torch.where(valid, order // top_k, torch.zeros_like(order))
    target = torch.where(valid, dest, torch.full_like(dest, rows - 1))
    last_row = x_perm[rows - 1].clone()
    x_perm[target] = x.index_select(0, source)
    x_perm[rows - 1] = torch.where(valid.all(), x_perm[rows - 1], last_row)

    # Combine: y[t] = sum_j w[t, j] * expert_out[inverse[t, j]] over the local slots, in fp32,
    # rounded to bf16 once.
    weights = torch.where(valid, topk_weights.reshape(-1)[order], torch.zeros_like(dest,
                                                                                 dtype=torch.float32))
    gathered = expert_out.index_select(0, torch.where(valid, dest, torch.zeros_like(dest)))
    y = torch.zeros((tokens, expert_out.shape[1]), dtype=torch.float32, device=device)
    y.index_add_(0, order // top_k, gathered.float() * weights[:, None])

    return (sorted_slot_ids.to(torch.int32), counts.to(torch.int32), offsets.to(torch.int32),
            inverse.view(tokens, top_k).to(torch.int32), y.to(expert_out.dtype))
