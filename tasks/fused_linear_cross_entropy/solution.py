def run(hidden, weight, targets):
    # Implement: loss = mean over the tokens whose target is not -100 of
    # logsumexp_v(hidden[i] . weight[v]) - hidden[i] . weight[targets[i]], and its gradients;
    # return (loss as a 0-d float32 tensor, grad_hidden [N, H] bf16, grad_weight [V, H] bf16).
    # The work must run in custom Triton kernels.
    raise NotImplementedError
