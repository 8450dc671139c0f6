def run(q, k_cache, v_cache, block_table, seq_lens, sm_scale, k_scale, v_scale):
    # Implement: decode attention of q [batch, h_q, head_dim] over the paged KV cache, reading
    # the pages of request b through block_table[b] up to seq_lens[b] tokens; query head h uses
    # KV head h // (h_q // h_kv); dequantize with k_scale / v_scale; return o [batch, h_q, head_dim]
    # in bf16. The work must run in custom Triton kernels.
    raise NotImplementedError
