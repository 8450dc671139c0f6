def run(q, k_cache, k_scale, weights, block_table, query_req, ks, ke, topk):
    # Implement: for every query t, score every key position s in [ks[t], ke[t]) of its request
    # (keys read through block_table) as sum_h weights[t, h] * relu(q[t, h] . k[s]) * k_scale[s]
    # with q and k decoded from e4m3fn codes, and return topk_indices [T, topk] int32: the
    # positions of the topk largest scores (equal scores: lower position first) in ascending
    # order, then -1. The work must run in custom Triton kernels.
    raise NotImplementedError
