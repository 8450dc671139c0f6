"""Anchor: dense causal attention with PyTorch's scaled_dot_product_attention on its
FlashAttention backend, over every key up to each query row.

This is not the task's operator: it attends to all j <= i, a superset of the selected keys, so
its output does not match the reference; the task lists it in evaluation.timing_only_anchors,
so it is timed without comparison. It is the speed bar a sparse kernel must clear: what the same prompt costs when the index is ignored
and attention runs dense with the fastest library kernel on the device. The grouped key and
value heads go to SDPA as they are (enable_gqa); where the flash backend refuses that, they are
repeated to the query heads once, decided on the first call.
"""

import torch.nn.functional as F

_repeat_kv = None


def run(q, k, v, vertical_idx, slash_idx, sm_scale):
    # Imported here: the module loads under PyTorch versions that lack torch.nn.attention.
    from torch.nn.attention import SDPBackend, sdpa_kernel

    global _repeat_kv
    T, h_q, d = q.shape
    group = h_q // k.shape[1]
    qt = q.transpose(0, 1).unsqueeze(0)  # [1, h_q, T, d]
    kt = k.transpose(0, 1).unsqueeze(0)  # [1, h_kv, T, d]
    vt = v.transpose(0, 1).unsqueeze(0)
    if _repeat_kv is None:
        try:
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                F.scaled_dot_product_attention(qt[:, :, :64], kt[:, :, :64], vt[:, :, :64],
                                               is_causal=True, scale=sm_scale, enable_gqa=True)
            _repeat_kv = False
        except RuntimeError:
            _repeat_kv = True
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        if _repeat_kv:
            kt = kt.repeat_interleave(group, dim=1)
            vt = vt.repeat_interleave(group, dim=1)
            o = F.scaled_dot_product_attention(qt, kt, vt, is_causal=True, scale=sm_scale)
        else:
            o = F.scaled_dot_product_attention(qt, kt, vt, is_causal=True, scale=sm_scale,
                                               enable_gqa=True)
    return o.squeeze(0).transpose(0, 1).contiguous()
