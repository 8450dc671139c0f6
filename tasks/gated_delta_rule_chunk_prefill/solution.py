def run(q, k, v, g, beta, initial_state, cu_seqlens, scale):
    # Implement: the gated delta rule over each packed sequence (cu_seqlens), from its
    # initial_state; return o [1, T, h_v, d_v] in bf16 and final_state [n_seqs, h_v, d_k, d_v]
    # in fp32. The work must run in custom Triton kernels.
    raise NotImplementedError
