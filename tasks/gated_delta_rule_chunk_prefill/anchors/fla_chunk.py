"""Anchor: flash-linear-attention's chunked gated delta rule (chunk_gated_delta_rule), the
library kernels a user of these models calls for prefill: Triton kernels for the gate cumsum,
the fused KK^T and triangular solve, the W/U recomputation, the chunk-to-chunk state pass and
the chunk outputs. It takes the same packed layout, value-head grouping, state layout [n, h_v,
d_k, d_v] and cu_seqlens. Needs the `fla` package on the device, imported on the first call so
that the anchor loads where the package is absent. With cu_seqlens, fla derives its chunk index
table on the host from the lengths, so under graph timing the capture of this anchor may be
refused; it is then timed with events."""

import torch


def run(q, k, v, g, beta, initial_state, cu_seqlens, scale):
    from fla.ops.gated_delta_rule import chunk_gated_delta_rule

    o, final_state = chunk_gated_delta_rule(
        q, k, v, g, beta, scale=scale, initial_state=initial_state,
        output_final_state=True, cu_seqlens=cu_seqlens.long())
    return o.to(torch.bfloat16), final_state.float()
