"""Inputs of one chain speculative verification call.

The target model's distributions imitate next-token probabilities of a language model: softmax
of a Gaussian bulk over the whole vocabulary plus a sparse head of boosted tokens (about 16 per
row), so some rows are dominated by one or two tokens and others spread their mass over
thousands. The drafter's distribution at a position is the softmax of the target's logits at
that position plus Gaussian noise of standard deviation `draft_noise`, so the drafter agrees
with the target on the head and disagrees more in the tail; the noise levels of the workloads
give mean per-position acceptance rates of about 0.86 (0.5), 0.80 (0.7) and 0.72 (1.0). Each
draft token is sampled from its drafter distribution (exponential race: argmax of q / E with E
exponential), as a drafter does. The uniforms are float64 in [0, 1).

With `edge` set (quick workloads only), rows are rewritten in a cycle of four to pin down the
paths that random rows reach rarely:
  0: every test passes (uniforms 0) and the final draw takes uniform 0: the bonus token, at the
     first token of positive weight;
  1: the target gives the first draft token probability 0 (the row renormalized), so the first
     test fails: a correction at position 0;
  2: the target row at position 0 equals the drafter's except for probability 0 at the first
     draft token (not renormalized): the first test fails and the residual has no weight, so the
     draw falls back to the target row;
  3: every draft token is the last vocabulary id, and the final draw takes the largest uniform
     below 1.
Every random value comes from one torch.Generator seeded with config["seed"] on
config["device"], so two processes with the same config build bit-identical inputs.
"""

import torch

HEAD_TOKENS_PER_ROW = 16
HEAD_BOOST_MIN = 2.0
HEAD_BOOST_MAX = 14.0
BULK_STD = 2.0
LARGEST_UNIFORM = 1.0 - 2.0 ** -53


def _target_logits(shape, gen, device):
    vocab = shape[-1]
    logits = torch.randn(shape, generator=gen, device=device) * BULK_STD
    head = torch.rand(shape, generator=gen, device=device) < (HEAD_TOKENS_PER_ROW / vocab)
    boost = HEAD_BOOST_MIN + (HEAD_BOOST_MAX - HEAD_BOOST_MIN) * torch.rand(
        shape, generator=gen, device=device)
    return logits + head.float() * boost


def _apply_edges(draft_probs, draft_token_ids, target_probs, uniforms):
    batch, n_draft, vocab = draft_probs.shape
    for row in range(batch):
        kind = row % 4
        if kind == 0:
            uniforms[row, :] = 0.0
        elif kind == 1:
            target_probs[row, 0, draft_token_ids[row, 0].long()] = 0.0
            target_probs[row, 0] /= target_probs[row, 0].sum()
        elif kind == 2:
            target_probs[row, 0] = draft_probs[row, 0]
            target_probs[row, 0, draft_token_ids[row, 0].long()] = 0.0
        else:
            draft_token_ids[row, :] = vocab - 1
            uniforms[row, n_draft] = LARGEST_UNIFORM


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    batch = int(config["batch"])
    n_draft = int(config["n_draft"])
    vocab = int(config["vocab"])
    draft_noise = float(config["draft_noise"])
    edge = int(config.get("edge", 0))
    if n_draft < 1:
        raise ValueError("n_draft must be at least 1")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    logits = _target_logits((batch, n_draft + 1, vocab), gen, device)
    target_probs = torch.softmax(logits, dim=-1)

    noise = torch.randn((batch, n_draft, vocab), generator=gen, device=device) * draft_noise
    draft_probs = torch.softmax(logits[:, :n_draft] + noise, dim=-1)
    del logits, noise

    # Exponential race: argmax_t q_t / E_t with E_t ~ Exp(1) picks t with probability q_t.
    race = torch.rand((batch, n_draft, vocab), generator=gen, device=device)
    race = draft_probs / -torch.log1p(-race)
    draft_token_ids = torch.argmax(race, dim=-1).to(torch.int32)
    del race

    uniforms = torch.rand((batch, n_draft + 1), generator=gen, device=device,
                          dtype=torch.float64)

    if edge:
        _apply_edges(draft_probs, draft_token_ids, target_probs, uniforms)

    return [draft_probs.contiguous(), draft_token_ids.contiguous(),
            target_probs.contiguous(), uniforms.contiguous()]
