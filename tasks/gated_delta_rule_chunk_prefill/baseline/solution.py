"""Baseline: the recurrence itself in one Triton kernel, token by token, with the state in
registers.

The first correct kernel one writes from the definition: a program owns one (sequence, value
head, block of BV value columns) and keeps that slice of the state, d_k x BV fp32, in registers
for the whole sequence. For every token it loads the key, query, value slice, decay and write
strength, and applies h' = alpha h, delta = beta (v - h'^T k), h = h' + k delta^T,
o = scale h^T q as broadcast products and reductions over the 128 key rows, then stores the
output slice. The last state goes to final_state. Sequences are read in place through
cu_seqlens; no scratch is needed.

What it does not do: every token is a dependent step (T steps of rank-one updates on CUDA cores
per program, no tensor-core product), and there are only n_seqs x h_v x d_v / BV programs to
share the device.

PyTorch is used only to allocate the outputs and make views.
"""

import torch
import triton
import triton.language as tl

# Value columns per program: the state slice is 128 x BV fp32 (32 registers a thread at 4 warps).
_BV = 32
_NUM_WARPS = 4


@triton.jit
def _recurrent_kernel(
    q_ptr, k_ptr, v_ptr, g_ptr, beta_ptr, h0_ptr, cu_ptr, o_ptr, ht_ptr,
    scale, H_QK, H_V,
    D_K: tl.constexpr, D_V: tl.constexpr, BV: tl.constexpr,
):
    vb = tl.program_id(0)
    head = tl.program_id(1)
    seq = tl.program_id(2)
    qk_head = head // (H_V // H_QK)

    bos = tl.load(cu_ptr + seq).to(tl.int64)
    eos = tl.load(cu_ptr + seq + 1).to(tl.int64)

    dk = tl.arange(0, D_K)
    dv = vb * BV + tl.arange(0, BV)
    state_off = (seq * H_V + head).to(tl.int64) * D_K * D_V
    h = tl.load(h0_ptr + state_off + dk[:, None] * D_V + dv[None, :])  # [D_K, BV] fp32

    length = (eos - bos).to(tl.int32)
    for i in range(0, length):
        t = bos + i
        qk_row = (t * H_QK + qk_head) * D_K
        v_row = (t * H_V + head) * D_V
        k_t = tl.load(k_ptr + qk_row + dk).to(tl.float32)
        q_t = tl.load(q_ptr + qk_row + dk).to(tl.float32)
        v_t = tl.load(v_ptr + v_row + dv).to(tl.float32)
        alpha = tl.exp(tl.load(g_ptr + t * H_V + head).to(tl.float32))
        b_t = tl.load(beta_ptr + t * H_V + head).to(tl.float32)

        h = h * alpha
        predicted = tl.sum(h * k_t[:, None], axis=0)  # h'^T k, [BV]
        delta = b_t * (v_t - predicted)
        h = h + k_t[:, None] * delta[None, :]
        o_t = tl.sum(h * q_t[:, None], axis=0) * scale
        tl.store(o_ptr + v_row + dv, o_t.to(o_ptr.dtype.element_ty))

    tl.store(ht_ptr + state_off + dk[:, None] * D_V + dv[None, :], h)


def run(q, k, v, g, beta, initial_state, cu_seqlens, scale):
    for name, t in (("q", q), ("k", k), ("v", v), ("g", g), ("beta", beta),
                    ("initial_state", initial_state), ("cu_seqlens", cu_seqlens)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    _, total, h_qk, d_k = q.shape
    h_v, d_v = v.shape[2], v.shape[3]
    n_seqs = cu_seqlens.shape[0] - 1
    assert k.shape == q.shape and v.shape[:2] == q.shape[:2] and h_v % h_qk == 0
    assert tuple(initial_state.shape) == (n_seqs, h_v, d_k, d_v) and d_v % _BV == 0

    o = torch.empty((1, total, h_v, d_v), dtype=v.dtype, device=v.device)
    final_state = torch.empty((n_seqs, h_v, d_k, d_v), dtype=torch.float32, device=v.device)
    _recurrent_kernel[(d_v // _BV, h_v, n_seqs)](
        q, k, v, g, beta, initial_state, cu_seqlens, o, final_state,
        float(scale), h_qk, h_v,
        D_K=d_k, D_V=d_v, BV=_BV, num_warps=_NUM_WARPS,
    )
    return o, final_state
