"""Inputs of one shared-prefix decode call over a paged KV cache.

The cache holds exactly the pages the call needs: the shared prefix's pages and, for every
request, the pages of its longest possible suffix. All pages are a random permutation of the
cache, so the prefix's pages and every request's own pages are scattered over the whole cache and
both block tables do real indirection.
"""

import torch

# Queries are drawn with this standard deviation so that, with N(0, 1) keys and
# sm_scale = 1/sqrt(head_dim), the logits have standard deviation 2: a few hundred tokens carry
# most of the weight, as in real decoding, and the tokens of the prefix and of the suffix both
# matter to every output.
QUERY_STD = 2.0


def _suffix_lens(batch, suffix_min, suffix_max):
    """Evenly spaced lengths from suffix_min to suffix_max, placed symmetrically so that they sum
    to batch * (suffix_min + suffix_max) / 2 (the work model's token count), rounded down."""
    if suffix_min == suffix_max or batch == 1:
        return [suffix_max] * batch
    span = suffix_max - suffix_min
    lengths = [0] * batch
    for i in range((batch + 1) // 2):
        low = suffix_min + (2 * i * span + (batch - 1)) // (2 * (batch - 1))
        lengths[i] = low
        lengths[batch - 1 - i] = suffix_min + suffix_max - low
    return lengths


def _normal(shape, std, gen, device):
    values = torch.randn(shape, generator=gen, dtype=torch.float32, device=device)
    return values.mul_(std).to(torch.bfloat16)


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    batch = int(config["batch"])
    h_q = int(config["h_q"])
    h_kv = int(config["h_kv"])
    head_dim = int(config["head_dim"])
    page_size = int(config["page_size"])
    prefix_len = int(config["prefix_len"])
    suffix_min = int(config["suffix_min"])
    suffix_max = int(config["suffix_max"])
    sm_scale = float(config["sm_scale"])
    if h_q % h_kv != 0:
        raise ValueError("h_q must be a multiple of h_kv")
    if prefix_len < 1 or suffix_min < 0 or suffix_max < max(1, suffix_min):
        raise ValueError("need prefix_len >= 1 and 0 <= suffix_min <= suffix_max, suffix_max >= 1")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    prefix_pages = (prefix_len + page_size - 1) // page_size
    suffix_pages = (suffix_max + page_size - 1) // page_size
    num_pages = prefix_pages + batch * suffix_pages
    cache_shape = (num_pages, page_size, h_kv, head_dim)

    q = _normal((batch, h_q, head_dim), QUERY_STD, gen, device)
    k_cache = _normal(cache_shape, 1.0, gen, device)
    v_cache = _normal(cache_shape, 1.0, gen, device)
    page_order = torch.randperm(num_pages, generator=gen, device=device).to(torch.int32)
    prefix_block_table = page_order[:prefix_pages].contiguous()
    suffix_block_table = page_order[prefix_pages:].reshape(batch, suffix_pages).contiguous()
    length_order = torch.randperm(batch, generator=gen, device=device)
    lengths = torch.tensor(_suffix_lens(batch, suffix_min, suffix_max), dtype=torch.int32,
                           device=device)
    suffix_lens = lengths[length_order].contiguous()
    return [q, k_cache, v_cache, prefix_block_table, suffix_block_table, suffix_lens,
            prefix_len, sm_scale]
