"""Inputs of one MoE permute / un-permute call.

The routing is drawn the way the modelled router computes it (DeepSeek-V3's group-limited
sigmoid router, or Qwen3's softmax router), over noisy logits with a per-call expert popularity,
so the per-expert row counts are skewed and change on every call. On an expert-parallel shard
the ids of experts held by other ranks are replaced by -1.
"""

import torch

# Spread of the per-expert popularity added to the router logits: a few experts get several
# times the mean number of rows and some nearly none, as in trained routers.
EXPERT_POPULARITY_STD = 0.3
# Values of e4m3 (finite, "fn" variant) and its block size for the FP8 payload.
FP8_E4M3_MAX = 448.0
FP8_BLOCK = 128


def capacity_rows(tokens, top_k, experts, align):
    """Rows of the permuted buffers: every slot local, every expert padded by align - 1."""
    return tokens * top_k + experts * (align - 1)


def draw_routing(config, gen, device):
    """topk_ids [T, top_k] int32 (local expert ids, -1 where the expert lives on another rank)
    and topk_weights [T, top_k] fp32, drawn as the modelled router computes them."""
    tokens = int(config["T"])
    top_k = int(config["top_k"])
    local_experts = int(config["E"])
    global_experts = int(config["E_global"])
    ep_rank = int(config["ep_rank"])
    router = str(config["router"])
    n_group = int(config["n_group"])
    topk_group = int(config["topk_group"])
    scaling = float(config["routed_scaling_factor"])
    if global_experts % local_experts or (ep_rank + 1) * local_experts > global_experts:
        raise ValueError("the local experts must be one rank's share of the global experts")

    popularity = EXPERT_POPULARITY_STD * torch.randn(
        (global_experts,), generator=gen, dtype=torch.float32, device=device)
    logits = torch.randn((tokens, global_experts), generator=gen, dtype=torch.float32,
                         device=device) + popularity

    if router == "softmax":
        # Qwen3-MoE: softmax over all experts, top-k, renormalized (norm_topk_prob).
        probs = torch.softmax(logits, dim=-1)
        top_probs, top_ids = torch.topk(probs, top_k, dim=-1)
        weights = top_probs / top_probs.sum(dim=-1, keepdim=True)
    elif router == "deepseek_v3":
        # DeepSeek-V3: sigmoid scores; a group's score is the sum of its two best experts; only
        # the topk_group best groups may be chosen; weights are the chosen scores normalized
        # to one and multiplied by routed_scaling_factor.
        if global_experts % n_group:
            raise ValueError("E_global must be a multiple of n_group")
        scores = torch.sigmoid(logits)
        grouped = scores.view(tokens, n_group, global_experts // n_group)
        group_scores = grouped.topk(2, dim=-1).values.sum(dim=-1)            # [T, n_group]
        kept = group_scores.topk(topk_group, dim=-1).indices
        group_mask = torch.zeros_like(group_scores).scatter_(1, kept, 1.0)
        expert_mask = group_mask[:, :, None].expand_as(grouped).reshape(tokens, global_experts)
        masked = scores.masked_fill(expert_mask == 0, float("-inf"))
        top_ids = masked.topk(top_k, dim=-1).indices
        top_scores = scores.gather(1, top_ids)
        weights = top_scores / top_scores.sum(dim=-1, keepdim=True) * scaling
    else:
        raise ValueError(f"unknown router {router!r}")

    # Experts of this rank are ep_rank * E .. ep_rank * E + E - 1; the others become -1.
    local = top_ids - ep_rank * local_experts
    on_rank = (local >= 0) & (local < local_experts)
    topk_ids = torch.where(on_rank, local, torch.full_like(local, -1)).to(torch.int32)
    return topk_ids.contiguous(), weights.to(torch.float32).contiguous()


def encode_e4m3(values):
    """float32 -> e4m3fn bit patterns (uint8), round to nearest even, saturating at 448.

    Written with integer arithmetic so that it runs on any PyTorch, with or without float8."""
    mag = values.abs().clamp(max=FP8_E4M3_MAX)
    mantissa, exponent = torch.frexp(mag)            # mag = mantissa * 2^exponent, 0.5 <= m < 1
    exponent = exponent - 1                          # mag = (2 m) * 2^exponent, 1 <= 2m < 2
    normal = exponent >= -6
    # Normal numbers: 3 mantissa bits after the leading one.
    frac = torch.round((mantissa * 2 - 1) * 8)       # 0 .. 8 (8 carries into the exponent)
    carry = frac >= 8
    frac = torch.where(carry, torch.zeros_like(frac), frac)
    exp_field = torch.where(carry, exponent + 1, exponent) + 7
    normal_code = exp_field.to(torch.int32) * 8 + frac.to(torch.int32)
    # Subnormals: multiples of 2^-9 below 2^-6 (a result of 8 is the smallest normal, code 8).
    sub_code = torch.round(mag * 512).to(torch.int32)
    code = torch.where(normal, normal_code, sub_code).clamp(max=0x7E)
    code = code + (values < 0).to(torch.int32) * 128
    return code.to(torch.uint8)


def fp8_rows(tokens, hidden, gen, device):
    """Packed FP8 activation rows: hidden e4m3 values, then hidden / 128 fp32 block scales
    (little-endian bytes), each block quantized with scale = amax / 448."""
    if hidden % FP8_BLOCK:
        raise ValueError("H must be a multiple of 128 for the FP8 payload")
    blocks = hidden // FP8_BLOCK
    values = torch.randn((tokens, blocks, FP8_BLOCK), generator=gen, dtype=torch.float32,
                         device=device)
    scale = values.abs().amax(dim=-1).clamp(min=1e-12) / FP8_E4M3_MAX      # [T, blocks]
    codes = encode_e4m3(values / scale[:, :, None]).reshape(tokens, hidden)
    scale_bytes = scale.contiguous().view(torch.uint8).reshape(tokens, blocks * 4)
    return torch.cat([codes, scale_bytes], dim=1).contiguous()


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    tokens = int(config["T"])
    top_k = int(config["top_k"])
    experts = int(config["E"])
    hidden = int(config["H"])
    align = int(config["align"])
    payload = str(config["payload"])
    row_bytes = int(config["row_bytes"])

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    topk_ids, topk_weights = draw_routing(config, gen, device)
    rows = capacity_rows(tokens, top_k, experts, align)

    if payload == "bf16":
        if row_bytes != 2 * hidden:
            raise ValueError("a bf16 row holds 2 * H bytes")
        x = torch.randn((tokens, hidden), generator=gen, dtype=torch.float32,
                        device=device).to(torch.bfloat16)
        # The permuted buffer is reused across layers: it holds the previous call's rows.
        x_perm = torch.randn((rows, hidden), generator=gen, dtype=torch.float32,
                             device=device).to(torch.bfloat16)
    elif payload == "fp8_packed":
        if row_bytes != hidden + 4 * (hidden // FP8_BLOCK):
            raise ValueError("a packed FP8 row holds H + 4 * H / 128 bytes")
        x = fp8_rows(tokens, hidden, gen, device)
        x_perm = torch.randint(0, 256, (rows, row_bytes), generator=gen, dtype=torch.int32,
                               device=device).to(torch.uint8)
    else:
        raise ValueError(f"unknown payload {payload!r}")

    # Output of the expert GEMMs in permuted row order; rows that hold no routed slot (padding,
    # and the capacity past the last expert) hold values of earlier calls.
    expert_out = torch.randn((rows, hidden), generator=gen, dtype=torch.float32,
                             device=device).to(torch.bfloat16)
    return [x, topk_ids, topk_weights, expert_out, x_perm, experts, align]
