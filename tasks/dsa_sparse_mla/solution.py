def run(q, kv_cache, indices, sm_scale):
    # Implement: for every query row and head, softmax attention of q[row, head] (576 values)
    # over the cache rows that indices[row] lists (valid entries only, each entry one term; the
    # FP8 records decoded with their per-128 scales); return o [rows, h, 512] bf16 (weighted sum
    # of the first 512 columns) and lse [rows, h] fp32 (natural log-sum-exp of the scaled scores).
    # The work must run in custom Triton kernels.
    raise NotImplementedError
