"""Input generator for the five-step polynomial orthogonalization task."""

import torch


def get_inputs(config):
    """Build the positional arguments of run(G, steps) for one workload.

    `config` is the workload entry of config.json merged over fixed_params, plus the
    evaluator's "seed" (int) and "device" (e.g. "cuda").
    """
    device = torch.device(config.get("device", "cuda"))
    batch = int(config["batch_size"])
    rows = int(config["M"])
    cols = int(config["N"])
    steps = int(config.get("steps", 5))

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))
    # Standard normal gradients, sampled directly in bf16 on the target device.
    G = torch.randn(
        (batch, rows, cols), generator=gen, dtype=torch.bfloat16, device=device
    )
    return [G, steps]
