"""Inputs of one MLA decode call over a paged latent cache.

The cache holds exactly the pages the batch needs at its longest length, and every request's
pages are a random permutation of them, so the pages a request reads are scattered across the
cache and the block table does real indirection.
"""

import math

import torch

# Every query-key product is a sum of qk_nope_head_dim + qk_rope_head_dim terms. With unit-variance
# latent values, up-projections scaled to keep the keys and values at unit variance, and queries
# drawn at the standard deviation below, the logits sm_scale * q.k have standard deviation
# LOGIT_STD: a few hundred tokens carry most of the weight even at 65536 tokens, as in real
# decoding, instead of a near-uniform average that would hide errors in the softmax.
LOGIT_STD = 2.0


def _seq_lens(batch, ctx_min, ctx_max):
    """Evenly spaced lengths from ctx_min to ctx_max, placed symmetrically so that they sum to
    exactly batch * (ctx_min + ctx_max) / 2 (the work model's token count)."""
    if ctx_min == ctx_max or batch == 1:
        return [ctx_max] * batch
    span = ctx_max - ctx_min
    lengths = [0] * batch
    for i in range((batch + 1) // 2):
        low = ctx_min + (2 * i * span + (batch - 1)) // (2 * (batch - 1))
        lengths[i] = low
        lengths[batch - 1 - i] = ctx_min + ctx_max - low
    return lengths


def _normal(shape, std, gen, device):
    values = torch.randn(shape, generator=gen, dtype=torch.float32, device=device)
    return values.mul_(std).to(torch.bfloat16)


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    batch = int(config["batch"])
    s_q = int(config["s_q"])
    h = int(config["h"])
    kv_lora_rank = int(config["kv_lora_rank"])
    rope_dim = int(config["qk_rope_head_dim"])
    nope_dim = int(config["qk_nope_head_dim"])
    v_dim = int(config["v_head_dim"])
    page_size = int(config["page_size"])
    ctx_min = int(config["ctx_min"])
    ctx_max = int(config["ctx_max"])
    sm_scale = float(config["sm_scale"])
    if ctx_min < s_q:
        raise ValueError("every request must hold at least its s_q new tokens")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    max_pages = (ctx_max + page_size - 1) // page_size
    num_pages = batch * max_pages
    query_std = LOGIT_STD / (sm_scale * math.sqrt(nope_dim + rope_dim))

    q_nope = _normal((batch, s_q, h, nope_dim), query_std, gen, device)
    q_rope = _normal((batch, s_q, h, rope_dim), query_std, gen, device)
    # The latent is RMS-normalized before it is cached, and the rotary keys are rotations of
    # unit-variance projections: both are N(0, 1) here.
    kv_cache = _normal((num_pages, page_size, kv_lora_rank + rope_dim), 1.0, gen, device)
    w_uk = _normal((h, nope_dim, kv_lora_rank), 1.0 / math.sqrt(kv_lora_rank), gen, device)
    w_uv = _normal((h, v_dim, kv_lora_rank), 1.0 / math.sqrt(kv_lora_rank), gen, device)
    page_order = torch.randperm(num_pages, generator=gen, device=device)
    block_table = page_order.to(torch.int32).view(batch, max_pages)
    length_order = torch.randperm(batch, generator=gen, device=device)
    lengths = torch.tensor(_seq_lens(batch, ctx_min, ctx_max), dtype=torch.int32, device=device)
    seq_lens = lengths[length_order].contiguous()
    return [q_nope, q_rope, kv_cache, block_table, seq_lens, w_uk, w_uv, sm_scale]
