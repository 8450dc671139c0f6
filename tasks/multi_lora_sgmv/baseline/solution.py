"""Multi-adapter LoRA, one token per program: a first custom-kernel version.

Two kernels. The shrink runs one program per token: it looks up the token's adapter and reduces
x[t] against the S*r rows of that adapter's lora_a, block by block over H, into an fp32 row of a
[T, S*r] buffer. The expand runs one program per (token, block of output columns): it finds each
column's slice from slice_offsets, multiplies the token's rank-r values of that slice with the
column block of lora_b, and writes base + scale * delta. Tokens without adapter copy base.
Every token reads its adapter's weights on its own; nothing is shared between tokens.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _shrink_per_token(x_ptr, a_ptr, ids_ptr, u_ptr, H, SR,
                      stride_x, stride_al, stride_ar,
                      BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    t = tl.program_id(0)
    adapter = tl.load(ids_ptr + t)
    if adapter < 0:
        return
    rr = tl.arange(0, BLOCK_R)
    r_ok = rr < SR
    acc = tl.zeros([BLOCK_R], dtype=tl.float32)
    a_rows = a_ptr + adapter.to(tl.int64) * stride_al + rr[:, None] * stride_ar
    for k0 in range(0, H, BLOCK_K):
        kk = k0 + tl.arange(0, BLOCK_K)
        k_ok = kk < H
        xv = tl.load(x_ptr + t.to(tl.int64) * stride_x + kk, mask=k_ok, other=0.0).to(tl.float32)
        av = tl.load(a_rows + kk[None, :], mask=r_ok[:, None] & k_ok[None, :], other=0.0)
        acc += tl.sum(av.to(tl.float32) * xv[None, :], axis=1)
    tl.store(u_ptr + t.to(tl.int64) * SR + rr, acc, mask=r_ok)


@triton.jit
def _expand_per_token(base_ptr, b_ptr, u_ptr, out_ptr, ids_ptr, offs_ptr, scale, N, SR, r,
                      stride_bl, stride_bn,
                      S: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_R: tl.constexpr):
    t = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ok = cols < N
    row = t.to(tl.int64) * N
    b0 = tl.load(base_ptr + row + cols, mask=c_ok, other=0.0)
    adapter = tl.load(ids_ptr + t)
    if adapter < 0:
        tl.store(out_ptr + row + cols, b0, mask=c_ok)
    else:
        # The slice of every column: how many slice boundaries after the first lie at or before it.
        slice_of = tl.zeros([BLOCK_N], dtype=tl.int32)
        for s in tl.static_range(1, S):
            slice_of += (cols >= tl.load(offs_ptr + s)).to(tl.int32)
        jr = tl.arange(0, BLOCK_R)
        j_ok = jr < r
        m = j_ok[:, None] & c_ok[None, :]
        u = tl.load(u_ptr + t.to(tl.int64) * SR + slice_of[None, :] * r + jr[:, None], mask=m,
                    other=0.0)  # [BLOCK_R, BLOCK_N]
        u = (u * scale).to(tl.bfloat16).to(tl.float32)
        bv = tl.load(b_ptr + adapter.to(tl.int64) * stride_bl + cols[None, :] * stride_bn + jr[:, None],
                     mask=m, other=0.0).to(tl.float32)
        delta = tl.sum(u * bv, axis=0)
        tl.store(out_ptr + row + cols, (b0.to(tl.float32) + delta).to(tl.bfloat16), mask=c_ok)


def run(x, base, lora_a, lora_b, slice_offsets, lora_ids, scale):
    T, H = x.shape
    L, SR, _ = lora_a.shape
    N, r = lora_b.shape[1], lora_b.shape[2]
    S = slice_offsets.shape[0] - 1
    assert base.shape == (T, N) and lora_a.shape[2] == H and SR == S * r
    for t in (x, base, lora_a, lora_b, slice_offsets, lora_ids):
        assert t.is_contiguous()

    u = torch.empty((T, SR), dtype=torch.float32, device=x.device)
    out = torch.empty((T, N), dtype=base.dtype, device=x.device)
    block_r = max(16, triton.next_power_of_2(SR))
    _shrink_per_token[(T,)](x, lora_a, lora_ids, u, H, SR,
                            x.stride(0), lora_a.stride(0), lora_a.stride(1),
                            BLOCK_R=block_r, BLOCK_K=64, num_warps=4)
    block_n = 128
    _expand_per_token[(T, triton.cdiv(N, block_n))](
        base, lora_b, u, out, lora_ids, slice_offsets, float(scale), N, SR, r,
        lora_b.stride(0), lora_b.stride(1),
        S=S, BLOCK_N=block_n, BLOCK_R=max(16, triton.next_power_of_2(r)), num_warps=4)
    return out
