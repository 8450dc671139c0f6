"""Inputs of one multi-adapter LoRA call.

Adapter assignment follows the workload: for decode (segments = 0) every token is its own
request and the adapters are scattered over the batch at random; for prefill (segments > 0) the
tokens come as requests of contiguous tokens, each with one adapter. Exactly `lora_tokens` tokens
carry an adapter and exactly `active_adapters` distinct adapters are used, the counts the work
model is written in; the others are -1.
"""

import math

import torch


def _segment_lengths(total, segments):
    """Request lengths with a 7x spread: request i gets a share proportional to
    1 + 6 * i / (segments - 1), and the lengths sum exactly to total (8192 in 8 requests gives
    256, 512, ..., 1792)."""
    if segments == 1:
        return [total]
    weights = [1.0 + 6.0 * i / (segments - 1) for i in range(segments)]
    lengths = [max(1, int(total * w / sum(weights))) for w in weights]
    lengths[-1] += total - sum(lengths)
    return lengths


def _lora_ids(T, L, lora_tokens, active, segments, gen, device):
    if lora_tokens == 0:
        return torch.full((T,), -1, dtype=torch.int32, device=device)
    chosen = torch.randperm(L, generator=gen, device=device)[:active]
    if segments > 0:
        # Requests of contiguous tokens in shuffled length order; every active adapter serves at
        # least one request, the rest draw among the active ones.
        lengths = _segment_lengths(lora_tokens, segments)
        order = torch.randperm(segments, generator=gen, device=device).tolist()
        extra = torch.randint(0, active, (max(0, segments - active),), generator=gen, device=device)
        per_segment = torch.cat([torch.arange(active, device=device)[:segments], extra])
        per_segment = per_segment[torch.randperm(segments, generator=gen, device=device)]
        ids = torch.cat([chosen[per_segment[i]].repeat(lengths[order[i]]) for i in range(segments)])
        none = torch.full((T - lora_tokens,), -1, dtype=ids.dtype, device=device)
        return torch.cat([ids, none]).to(torch.int32)
    # Decode: every active adapter gets one token, the other adapter tokens draw among them, the
    # tokens without adapter are -1, all placed at random positions.
    rest = torch.randint(0, active, (lora_tokens - active,), generator=gen, device=device)
    slots = torch.cat([torch.arange(active, device=device), rest])
    ids = torch.cat([chosen[slots], torch.full((T - lora_tokens,), -1, dtype=chosen.dtype, device=device)])
    return ids[torch.randperm(T, generator=gen, device=device)].to(torch.int32)


def _normal(shape, std, gen, device):
    values = torch.randn(shape, generator=gen, dtype=torch.float32, device=device)
    return values.mul_(std).to(torch.bfloat16)


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    T = int(config["T"])
    H = int(config["H"])
    N = int(config["N"])
    S = int(config["S"])
    widths = [int(w) for w in str(config["slices"]).split(",")]
    L = int(config["L"])
    r = int(config["r"])
    lora_tokens = int(config["lora_tokens"])
    active = int(config["active_adapters"])
    segments = int(config["segments"])
    scale = float(config["scale"])
    if len(widths) != S or sum(widths) != N:
        raise ValueError("slices must list S widths that sum to N")
    if not (0 <= lora_tokens <= T and min(1, lora_tokens) <= active <= min(L, lora_tokens)):
        raise ValueError("need 0 <= lora_tokens <= T and 1 <= active_adapters <= min(L, lora_tokens)")
    if lora_tokens == 0 and active != 0:
        raise ValueError("no adapter tokens means no active adapter")
    if segments > 0 and (segments < active or segments > lora_tokens):
        raise ValueError("prefill needs active_adapters <= segments <= lora_tokens")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    # Hidden states after the layer's RMSNorm: unit variance. The down-projections keep the
    # rank-r activations at unit variance and the up-projections keep every output column at
    # unit variance before scaling, so the adapter's term (scale 2) is about twice base.
    x = _normal((T, H), 1.0, gen, device)
    base = _normal((T, N), 1.0, gen, device)
    lora_a = _normal((L, S * r, H), 1.0 / math.sqrt(H), gen, device)
    lora_b = _normal((L, N, r), 1.0 / math.sqrt(r), gen, device)
    offsets = [0]
    for w in widths:
        offsets.append(offsets[-1] + w)
    slice_offsets = torch.tensor(offsets, dtype=torch.int32, device=device)
    lora_ids = _lora_ids(T, L, lora_tokens, active, segments, gen, device)
    return [x, base, lora_a, lora_b, slice_offsets, lora_ids, scale]
