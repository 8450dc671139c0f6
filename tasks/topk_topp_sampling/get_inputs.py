"""Input generator for the top-k/top-p sampling task.

Logits imitate a language model's next-token scores: a Gaussian bulk over the whole vocabulary
plus a sparse head of boosted tokens (about 32 per row), so some rows are dominated by a few
tokens and others spread their mass over thousands. Every random value comes from one
torch.Generator seeded with config["seed"] on config["device"], and only elementwise operations
are used, so two processes with the same config build bit-identical inputs.
"""

import torch

# Per-row parameter choices of the per-row workload (DeepSeek-V3 serving mixes requests).
PER_ROW_TOP_K = (1, 5, 20, 50, 100, 0)   # 0: no top-k limit; 1: greedy
HEAD_TOKENS_PER_ROW = 32
BULK_SCALE = 2.0
SAMPLE_SEED = 0x5EED2024


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    batch = int(config["batch"])
    vocab = int(config["vocab"])
    seed = int(config.get("seed", 0))

    gen = torch.Generator(device=device)
    gen.manual_seed(seed)

    logits = torch.randn((batch, vocab), generator=gen, device=device) * BULK_SCALE
    head = torch.rand((batch, vocab), generator=gen, device=device) < (HEAD_TOKENS_PER_ROW / vocab)
    boost = 2.0 + 8.0 * torch.rand((batch, vocab), generator=gen, device=device)
    logits = logits + head.float() * boost

    if int(config.get("per_row", 0)):
        choice = torch.randint(0, len(PER_ROW_TOP_K), (batch,), generator=gen, device=device)
        top_k = torch.tensor(PER_ROW_TOP_K, dtype=torch.int32, device=device)[choice]
        # top_p in [0.7, 1.0], a quarter of the rows exactly 1.0 (no top-p limit).
        top_p = 0.7 + 0.3 * torch.rand((batch,), generator=gen, device=device)
        no_p = torch.rand((batch,), generator=gen, device=device) < 0.25
        top_p = torch.where(no_p, torch.ones_like(top_p), top_p)
        temperature = 0.3 + torch.rand((batch,), generator=gen, device=device)
    else:
        top_k = torch.full((batch,), int(config["top_k"]), dtype=torch.int32, device=device)
        top_p = torch.full((batch,), float(config["top_p"]), dtype=torch.float32, device=device)
        temperature = torch.full((batch,), float(config["temperature"]), dtype=torch.float32,
                                 device=device)

    # The sampling seed is a static input, fixed per workload: the evaluator replaces it with a
    # fresh value for every call of its distribution check's fit test.
    sample_seed = SAMPLE_SEED
    return [logits.contiguous(), top_k.contiguous(), top_p.contiguous(),
            temperature.contiguous(), sample_seed]
