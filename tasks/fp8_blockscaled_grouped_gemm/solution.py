def run(a, a_scale, b, b_scale, grouping):
    # Implement: the FP8 (e4m3) grouped GEMM with 1 x 128 activation scales and 128 x 128 weight
    # scales, d[row] = (A[row] * a_scale) (B[g] * b_scale)^T for every valid row of group g, in the
    # contiguous layout (a [rows, K], grouping = group per row or -1) or the masked layout
    # (a [G, M_max, K], grouping = valid rows per group); invalid rows are zero; return d in bf16.
    # The work must run in custom Triton kernels.
    raise NotImplementedError
