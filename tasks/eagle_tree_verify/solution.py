def run(logits, candidates, first_child, next_sibling, coins, temperature,
        max_depth, topk, greedy, threshold_single, threshold_acc, seed):
    # Implement: walk every request's draft tree from the root (first_child / next_sibling
    # pointers), accepting the first child whose token is the target's argmax (greedy) or passes
    # the coin test (sampling), and return (accept_index int32 [batch, max_depth + 1],
    # accept_len int32 [batch], next_token int64 [batch]); in sampling mode next_token is drawn
    # from the last node's target distribution without its children's tokens, with randomness
    # derived from `seed` (see task_description.md), all in custom Triton kernels.
    raise NotImplementedError
