def run(draft_probs, draft_token_ids, target_probs, uniforms):
    # Implement: per request, test the draft tokens against the target with the given uniforms,
    # draw the correction (or bonus) token from the integer-weight inverse CDF the task defines,
    # and return (output_token_ids [batch, n_draft + 1], accepted_token_num [batch],
    # emitted_token_num [batch]), all int32, computed in custom Triton kernels.
    raise NotImplementedError
