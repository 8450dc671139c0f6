def run(q, k, v, vertical_idx, slash_idx, sm_scale):
    # Implement: causal prefill attention in which query row i of head hq attends only to the
    # keys j <= i with j in vertical_idx[hq] or i - j in slash_idx[hq] (key head hq // (h_q / h_kv));
    # return o [T, h_q, head_dim] in bf16. The work must run in custom Triton kernels.
    raise NotImplementedError
