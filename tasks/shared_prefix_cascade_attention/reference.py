"""Shared-prefix decode attention, written the direct way: every request is ordinary paged decode
attention over its full page list, the shared prefix's pages followed by its own.

The page lists are built by repeating the prefix's block table in front of each request's own
table. For a group of requests at a time, every listed page is gathered into a contiguous fp32 K
and V, each KV head is repeated for the query heads that share it, and an fp32 softmax runs over
the scaled scores with the slots past the prefix length and past each request's suffix length
masked out. Lengths stay on the device, so every request is expanded to the tables' full
capacity and the loop needs no host round trip.
"""

import torch

# The gathered, converted and head-repeated K and V of one group of requests stay below about
# this many bytes.
_GROUP_BYTES = 16 * 2**30


def run(q, k_cache, v_cache, prefix_block_table, suffix_block_table, suffix_lens, prefix_len,
        sm_scale):
    batch, h_q, head_dim = q.shape
    num_pages, page_size, h_kv = k_cache.shape[0], k_cache.shape[1], k_cache.shape[2]
    if h_q % h_kv != 0:
        raise ValueError("h_q must be a multiple of h_kv")
    group = h_q // h_kv
    prefix_pages = prefix_block_table.shape[0]
    suffix_pages = suffix_block_table.shape[1]
    prefix_slots = prefix_pages * page_size
    tokens = prefix_slots + suffix_pages * page_size
    device = q.device

    lengths = suffix_lens.long()
    positions = torch.arange(tokens, device=device)[None, :]
    # Request b sees the prefix's first prefix_len slots and the first suffix_lens[b] slots of
    # its own pages, which follow the prefix's pages in its page list.
    visible = torch.where(positions < prefix_slots, positions < prefix_len,
                          positions - prefix_slots < lengths[:, None])  # [batch, tokens]
    # Table entries past a request's last page may name any page: read page 0 there (masked).
    used = torch.arange(suffix_pages, device=device)[None, :] * page_size < lengths[:, None]
    own_pages = torch.where(used, suffix_block_table.long(), 0).clamp(0, num_pages - 1)
    # The prefix's pages repeated in every request's list.
    tables = torch.cat([prefix_block_table.long()[None, :].expand(batch, -1), own_pages], dim=1)

    # Bytes per request: K and V gathered in the cache dtype, converted to fp32, and repeated for
    # the group's query heads in fp32.
    per_request = tokens * h_kv * head_dim * 2 * (2 + 4 + 4 * group)
    step = max(1, _GROUP_BYTES // per_request)

    out = torch.empty_like(q)
    for first in range(0, batch, step):
        rows = slice(first, min(first + step, batch))
        pages = tables[rows]
        count = pages.shape[0]
        seen = visible[rows]
        k = k_cache[pages].reshape(count, tokens, h_kv, head_dim).float()
        v = v_cache[pages].reshape(count, tokens, h_kv, head_dim).float()
        # Whatever sits in a hidden slot (even NaN) must not reach the sum through a zero weight.
        v = v.masked_fill(~seen[:, :, None, None], 0.0)
        # Query head h reads KV head h // group.
        k = k.repeat_interleave(group, dim=2)  # [count, tokens, h_q, head_dim]
        v = v.repeat_interleave(group, dim=2)
        scores = torch.einsum("bhd,bthd->bht", q[rows].float(), k) * sm_scale
        scores = scores.masked_fill(~seen[:, None, :], float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        out[rows] = torch.einsum("bht,bthd->bhd", probs, v).to(out.dtype)
    return out
