def run(x, topk_ids, topk_weights, expert_out, x_perm, num_experts, align):
    # Implement: group the (token, choice) slots by local expert (stable, -1 ids dropped), pad each
    # expert's rows to a multiple of align, copy each slot's activation row into x_perm (in place),
    # and combine y[t] = sum_j topk_weights[t, j] * expert_out[inverse[t, j]]; return
    # (sorted_slot_ids, expert_counts, expert_offsets, inverse, y). The work must run in custom
    # Triton kernels.
    raise NotImplementedError
