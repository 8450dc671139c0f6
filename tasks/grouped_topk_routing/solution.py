def run(router_logits, correction_bias, n_group, topk_group, top_k, routed_scaling_factor):
    # Implement: sigmoid scores, plus the correction bias for the selection; keep the topk_group
    # groups with the largest sum of their two best biased scores; choose the top_k experts by
    # biased score inside them (ties: lower index); return (topk_weights [T, top_k] float32: the
    # chosen unbiased scores normalized to sum 1 times routed_scaling_factor, topk_ids [T, top_k]
    # int32), both in ascending expert id. The work must run in custom Triton kernels.
    raise NotImplementedError
