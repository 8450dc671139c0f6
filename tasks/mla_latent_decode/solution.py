def run(q_nope, q_rope, kv_cache, block_table, seq_lens, w_uk, w_uv, sm_scale):
    # Implement: MLA decode attention of the s_q query tokens of each request over its paged
    # latent cache (keys [w_uk[h] @ c ; k_rope], values w_uv[h] @ c, c and k_rope read through
    # block_table up to seq_lens[b] with the causal limit of each query token); return
    # o [batch, s_q, h, v_head_dim] in bf16. The work must run in custom Triton kernels.
    raise NotImplementedError
