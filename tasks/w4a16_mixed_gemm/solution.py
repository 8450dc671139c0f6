def run(x, qweight, scales, qzeros):
    # Implement: y = x @ W in bf16, where W [K, N] is the group-quantized 4-bit weight described
    # by qweight (codes packed eight per int32 along K), scales and qzeros (zero points packed
    # eight per int32 along N), W[k, n] = (code - zero) * scale of the group k // group_size.
    # The work must run in custom Triton kernels.
    raise NotImplementedError
