"""Anchor: PyTorch's FP8 GEMM with block scales (cuBLASLt), one call per group or row block.

torch._scaled_mm takes 1 x 128 activation scales and 128 x 128 weight scales on sm90 where the
torch build and cuBLASLt support those recipes; it infers the recipe from the scales' shapes and
strides (activation scales [M, K/128] with the rows contiguous, weight scales [K/128, N/128] for
the weights passed as [K, N] column-major). Where torch.nn.functional.scaled_mm exists, it is
tried with the recipes named explicitly if the private call refuses. When neither accepts them the
anchor raises with both messages: no FP8 library path exists in this torch for this scaling.

masked: one call per group on its full M_max rows, invalid rows zeroed afterwards.
contiguous: one call per 128-row block; the block's group comes from the device, so its weights
and weight scales are gathered with index_select (a copy per block) to stay free of host round
trips (the call is captured in a CUDA graph). Padding rows are zeroed at the end.
"""

import torch

BLOCK = 128
_path = {}  # "private" or "functional", once one has worked


def _functional(x, w_t, sa, sb):
    import torch.nn.functional as F

    recipe = F.ScalingType
    return F.scaled_mm(x, w_t, sa, recipe.BlockWise1x128, sb, recipe.BlockWise128x128,
                       output_dtype=torch.bfloat16)


def _private(x, w_t, sa, sb):
    return torch._scaled_mm(x, w_t, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)


def _blockwise_mm(x, w_t, sa, sb):
    """x [M, K] e4m3 row-major, w_t [K, N] e4m3 column-major, sa [M, K/128] (stride (1, M)),
    sb [K/128, N/128] (stride (1, K/128))."""
    if "ok" in _path:
        return _path["ok"](x, w_t, sa, sb)
    errors = []
    for name, fn in (("torch._scaled_mm", _private), ("torch.nn.functional.scaled_mm", _functional)):
        try:
            out = fn(x, w_t, sa, sb)
        except (RuntimeError, TypeError, ValueError, NotImplementedError, AttributeError) as error:
            errors.append(f"{name}: {type(error).__name__}: {error}")
            continue
        _path["ok"] = fn
        return out
    raise RuntimeError("no FP8 GEMM with 1x128 x 128x128 block scales in torch "
                       f"{torch.__version__} on this device:\n  " + "\n  ".join(errors))


def run(a, a_scale, b, b_scale, grouping):
    groups, n, k = b.shape
    a8 = a.view(torch.float8_e4m3fn)
    b8 = b.view(torch.float8_e4m3fn)
    if a.dim() == 3:
        m_max = a.shape[1]
        out = torch.empty((groups, m_max, n), dtype=torch.bfloat16, device=a.device)
        for g in range(groups):
            out[g] = _blockwise_mm(a8[g], b8[g].t(), a_scale[g].t(), b_scale[g].t())
        rows = torch.arange(m_max, device=a.device)
        valid = (rows[None, :] < grouping[:, None].long())[:, :, None]
    else:
        rows = a.shape[0]
        out = torch.empty((rows, n), dtype=torch.bfloat16, device=a.device)
        block_group = grouping.view(rows // BLOCK, BLOCK)[:, 0].long().clamp(min=0)
        for t in range(rows // BLOCK):
            pick = block_group[t:t + 1]
            w = b.index_select(0, pick)[0].view(torch.float8_e4m3fn)       # [N, K]
            sb = b_scale.index_select(0, pick)[0]                            # [N/128, K/128]
            sa = a_scale[:, t * BLOCK:(t + 1) * BLOCK].contiguous()          # [K/128, 128]
            out[t * BLOCK:(t + 1) * BLOCK] = _blockwise_mm(a8[t * BLOCK:(t + 1) * BLOCK], w.t(),
                                                           sa.t(), sb.t())
        valid = (grouping >= 0)[:, None]
    return torch.where(valid, out, torch.zeros((), dtype=out.dtype, device=out.device))
