"""Baseline: the recurrence itself in one Triton kernel, one token at a time.

The first correct kernel one writes from the model's definition of the scan: a program owns
BLOCK_P rows of one (sequence, head) state, BLOCK_P x d_state values in fp32 registers, and walks
the tokens in order. Per token it computes dt = softplus(dt + dt_bias) and the decay exp(dt A),
reads the token's x rows and its group's B and C, updates the state with
state = decay * state + dt x (outer) B, writes y = state . C + D x, and after the last token
stores the final state. Nothing but the inputs and the outputs touches memory.

What it does not do: the tokens of a sequence form a chain of dependent steps, each a handful
of vector operations and a reduction over d_state, so the device runs seq_len short steps one
after another per program; no matrix product, no tensor cores; every head re-reads its group's
B and C.

PyTorch is used only to allocate the outputs.
"""

import torch
import triton
import triton.language as tl

# State rows per program: 16 rows of 128 fp32 values keep the state in registers and give
# batch x heads x head_dim / 16 programs.
_BLOCK_P = 16
_NUM_WARPS = 4
_NUM_STAGES = 3


@triton.jit
def _softplus(v):
    # log(1 + e^v) with log1p accuracy for small e^v (Goldberg's correction); v itself above 20.
    u = tl.exp(v)
    w = 1.0 + u
    small = tl.where(w == 1.0, u, tl.log(w) * (u / (w - 1.0)))
    return tl.where(v > 20.0, v, small)


@triton.jit
def _scan_kernel(
    x_ptr, dt_ptr, a_ptr, b_ptr, c_ptr, d_ptr, bias_ptr, init_ptr, y_ptr, final_ptr,
    T, H, PER_GROUP,
    stride_x_b, stride_x_t, stride_dt_b, stride_dt_t, stride_b_b, stride_b_t,
    P: tl.constexpr, N: tl.constexpr, BLOCK_P: tl.constexpr,
):
    p_blk = tl.program_id(0)
    bh = tl.program_id(1)
    b = bh // H
    h = bh % H
    g = h // PER_GROUP
    b64 = b.to(tl.int64)
    p = p_blk * BLOCK_P + tl.arange(0, BLOCK_P)
    n = tl.arange(0, N)
    pn = p[:, None] * N + n[None, :]

    rate = tl.load(a_ptr + h)
    bias = tl.load(bias_ptr + h)
    skip = tl.load(d_ptr + h)
    state = tl.load(init_ptr + bh.to(tl.int64) * (P * N) + pn)  # [BLOCK_P, N] fp32
    x_base = x_ptr + b64 * stride_x_b + h * P + p
    dt_base = dt_ptr + b64 * stride_dt_b + h
    b_base = b_ptr + b64 * stride_b_b + g * N + n
    c_base = c_ptr + b64 * stride_b_b + g * N + n
    y_base = y_ptr + b64 * stride_x_b + h * P + p
    for t in range(T):
        step = _softplus(tl.load(dt_base + t * stride_dt_t).to(tl.float32) + bias)
        decay = tl.exp(step * rate)
        xt = tl.load(x_base + t * stride_x_t).to(tl.float32)  # [BLOCK_P]
        bt = tl.load(b_base + t * stride_b_t).to(tl.float32)  # [N]
        ct = tl.load(c_base + t * stride_b_t).to(tl.float32)  # [N]
        state = state * decay + (xt * step)[:, None] * bt[None, :]
        yt = tl.sum(state * ct[None, :], axis=1) + skip * xt
        tl.store(y_base + t * stride_x_t, yt.to(y_ptr.dtype.element_ty))
    tl.store(final_ptr + bh.to(tl.int64) * (P * N) + pn, state)


def run(x, dt, A, B, C, D, dt_bias, initial_states):
    batch, seq_len, heads, head_dim = x.shape
    groups, d_state = B.shape[2], B.shape[3]
    assert dt.shape == (batch, seq_len, heads)
    assert B.shape == C.shape == (batch, seq_len, groups, d_state)
    assert A.shape == D.shape == dt_bias.shape == (heads,)
    assert initial_states.shape == (batch, heads, head_dim, d_state)
    assert heads % groups == 0 and head_dim % _BLOCK_P == 0
    for name, t in (("x", x), ("dt", dt), ("B", B), ("C", C), ("initial_states", initial_states)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    y = torch.empty_like(x)
    final_states = torch.empty((batch, heads, head_dim, d_state), dtype=torch.float32,
                               device=x.device)
    _scan_kernel[(head_dim // _BLOCK_P, batch * heads)](
        x, dt, A, B, C, D, dt_bias, initial_states, y, final_states,
        seq_len, heads, heads // groups,
        x.stride(0), x.stride(1), dt.stride(0), dt.stride(1), B.stride(0), B.stride(1),
        P=head_dim, N=d_state, BLOCK_P=_BLOCK_P,
        num_warps=_NUM_WARPS, num_stages=_NUM_STAGES,
    )
    return y, final_states
