"""Inputs of one paged GQA decode call.

The KV cache holds exactly the pages the batch needs at its longest length, and every
request's pages are a random permutation of them, so the pages a request reads are scattered
across the cache and the block table does real indirection.
"""

import torch

# Queries are drawn with this standard deviation so that, with N(0, 1) keys and
# sm_scale = 1/sqrt(head_dim), the logits have standard deviation 2: a few hundred keys carry
# most of the weight even at 131072 tokens, as in real decoding, instead of a near-uniform
# average that would hide errors in the softmax.
QUERY_STD = 2.0
FP8_E4M3_MAX = 448.0


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


def _cache(shape, kv_dtype, scale, gen, device):
    if kv_dtype == "bf16":
        return torch.randn(shape, generator=gen, dtype=torch.bfloat16, device=device)
    if kv_dtype == "fp8_e4m3":
        # Stored values are N(0, 1) / scale, so that dequantized values (stored * scale) are
        # N(0, 1); with scale = 1/64 the largest draws stay well inside e4m3's +-448. The cache
        # is handed over as its raw e4m3fn bytes in a uint8 tensor, the way serving engines
        # often allocate fp8 caches (and the form the harness can hash and copy).
        values = torch.randn(shape, generator=gen, dtype=torch.float32, device=device)
        values.div_(scale).clamp_(-FP8_E4M3_MAX, FP8_E4M3_MAX)
        return values.to(torch.float8_e4m3fn).view(torch.uint8)
    raise ValueError(f"unknown kv_dtype {kv_dtype!r}")


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    batch = int(config["batch"])
    h_q = int(config["h_q"])
    h_kv = int(config["h_kv"])
    head_dim = int(config["head_dim"])
    page_size = int(config["page_size"])
    ctx_min = int(config["ctx_min"])
    ctx_max = int(config["ctx_max"])
    kv_dtype = config.get("kv_dtype", "bf16")
    k_scale = float(config.get("k_scale", 1.0))
    v_scale = float(config.get("v_scale", 1.0))
    sm_scale = float(config["sm_scale"])
    if h_q % h_kv != 0:
        raise ValueError("h_q must be a multiple of h_kv")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    max_pages = (ctx_max + page_size - 1) // page_size
    num_pages = batch * max_pages
    cache_shape = (num_pages, page_size, h_kv, head_dim)

    q = torch.randn((batch, h_q, head_dim), generator=gen, dtype=torch.float32, device=device)
    q = q.mul_(QUERY_STD).to(torch.bfloat16)
    k_cache = _cache(cache_shape, kv_dtype, k_scale, gen, device)
    v_cache = _cache(cache_shape, kv_dtype, v_scale, gen, device)
    page_order = torch.randperm(num_pages, generator=gen, device=device)
    block_table = page_order.to(torch.int32).view(batch, max_pages)
    length_order = torch.randperm(batch, generator=gen, device=device)
    lengths = torch.tensor(_seq_lens(batch, ctx_min, ctx_max), dtype=torch.int32, device=device)
    seq_lens = lengths[length_order].contiguous()
    return [q, k_cache, v_cache, block_table, seq_lens, sm_scale, k_scale, v_scale]
