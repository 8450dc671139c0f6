"""Anchor: the absorbed formulation in library calls, unfused.

The queries are projected into the latent space with one einsum (q_nope w_uk[h]), every request's
pages are gathered into a contiguous latent copy, and PyTorch's scaled_dot_product_attention
attends with all (query token, head) pairs of a request as the rows of one query head against
the shared 576-wide latent (values: its first kv_lora_rank columns), under a boolean mask for the
lengths and the causal limits. A last einsum applies the value up-projection.
"""

import torch
import torch.nn.functional as F


def run(q_nope, q_rope, kv_cache, block_table, seq_lens, w_uk, w_uv, sm_scale):
    batch, s_q, h, _ = q_nope.shape
    rope_dim = q_rope.shape[-1]
    page_size, latent_dim = kv_cache.shape[1], kv_cache.shape[2]
    kv_lora_rank = latent_dim - rope_dim
    tokens = block_table.shape[1] * page_size
    device = q_nope.device

    q_lat = torch.einsum("bshd,hdc->bshc", q_nope, w_uk)
    q = torch.cat([q_lat, q_rope], dim=-1).reshape(batch, 1, s_q * h, latent_dim)
    latent = kv_cache[block_table.long()].reshape(batch, 1, tokens, latent_dim)

    positions = torch.arange(tokens, device=device)
    limits = seq_lens.long()[:, None] - s_q + 1 + torch.arange(s_q, device=device)
    visible = positions[None, None, :] < limits[:, :, None]  # [batch, s_q, tokens]
    mask = visible[:, None, :, None, :].expand(batch, 1, s_q, h, tokens)
    mask = mask.reshape(batch, 1, s_q * h, tokens)

    o_lat = F.scaled_dot_product_attention(q, latent, latent[..., :kv_lora_rank],
                                           attn_mask=mask, scale=sm_scale)
    o_lat = o_lat.reshape(batch, s_q, h, kv_lora_rank)
    return torch.einsum("bshc,hvc->bshv", o_lat, w_uv)
