def run(x, c0, iters):
    # Implement: iters Lloyd iterations of k-means on every batch item of x [Bt, N, d] fp16,
    # starting from c0 [Bt, K, d] fp16 (assign each point to its nearest centroid, lowest index
    # on ties; replace each centroid by the mean of its points, an empty one keeps its value);
    # return (assignments [Bt, N] int32 of the last iteration, centroids [Bt, K, d] float32).
    # The work must run in custom Triton kernels.
    raise NotImplementedError
