def run(logits, top_k, top_p, temperature, seed):
    # Implement: per row, softmax(logits / temperature) restricted to the top-k tokens and the
    # top-p prefix (value-based ties, see task_description.md), renormalized; return one sampled
    # token id per row as int64 [batch], drawn from randomness derived from `seed`, in custom
    # Triton kernels without sorting the vocabulary.
    raise NotImplementedError
