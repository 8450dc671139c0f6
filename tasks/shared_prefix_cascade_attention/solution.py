def run(q, k_cache, v_cache, prefix_block_table, suffix_block_table, suffix_lens, prefix_len,
        sm_scale):
    # Implement: decode attention of q [batch, h_q, head_dim] over the shared prefix (its first
    # prefix_len tokens, read through prefix_block_table) and each request's own tokens (the
    # first suffix_lens[b], read through suffix_block_table[b]) in the paged K/V cache; query head
    # h uses KV head h // (h_q // h_kv); return o [batch, h_q, head_dim] in bf16. The work must
    # run in custom Triton kernels.
    raise NotImplementedError
