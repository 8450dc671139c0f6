def run(logits, bitmask, indices):
    # Implement: for every row b listed in indices, set logits[b, v] = -inf for each token v whose
    # bit in the packed int32 mask row bitmask[b] is 0 (tokens past the mask's last word count as
    # 0), in place, leaving every other element and every unlisted row untouched; return logits.
    # The work must run in custom Triton kernels.
    raise NotImplementedError
