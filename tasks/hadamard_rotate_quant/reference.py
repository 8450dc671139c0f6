"""Hadamard rotation with per-row FP8 (e4m3) quantization, written the direct way.

Build the dense n x n Hadamard matrix H_n = H_m (x) H_p (Kronecker product of the special
order-m matrix and the order-p Sylvester matrix), multiply every row of x by it in fp32, divide
by sqrt(n), then take each row's absolute maximum, divide by amax / 448 and round to e4m3.
The quantized values are returned widened to bf16 (exact: every e4m3 value is a bf16 value).
Everything stays on the device, so the call can be captured into a CUDA graph.
"""

import math

import torch

FP8_MAX = 448.0
# Rows whose largest rotated magnitude is below this use it instead (no division by zero).
AMAX_FLOOR = 1e-4
# The special orders and the prime q of their Paley construction: order q + 1 (construction I,
# q = 3 mod 4) or order 2 (q + 1) (construction II, q = 1 mod 4). An order 40 * 2^a is
# 20 * 2^(a + 1) here.
SPECIAL = {12: (11, 1), 20: (19, 1), 28: (13, 2)}


def split_order(n):
    """n = m * p with p a power of two and m = 1, or m = 4 * (odd part of n) in SPECIAL."""
    odd = n // (n & (-n))
    m = 1 if odd == 1 else 4 * odd
    if (m != 1 and m not in SPECIAL) or n % m != 0:
        raise ValueError(f"n = {n} is not 2^a or m * 2^a with m in {sorted(SPECIAL)}")
    return m, n // m


def _legendre(d, q):
    """chi(d) for a tensor of residues d in [0, q): 0 at 0, +1 on nonzero squares, -1 elsewhere."""
    squares = (torch.arange(1, q, device=d.device) ** 2) % q
    is_square = (d[..., None] == squares).any(dim=-1)
    return torch.where(d == 0, 0, torch.where(is_square, 1, -1))


def special_hadamard(m, device):
    """The order-m matrix of the task (float32, entries +-1)."""
    if m == 1:
        return torch.ones((1, 1), dtype=torch.float32, device=device)
    q, kind = SPECIAL[m]
    size = q + 1
    i = torch.arange(size, device=device)[:, None]
    j = torch.arange(size, device=device)[None, :]
    chi = _legendre((j - i) % q, q)
    if kind == 1:
        # I + [[0, 1^T], [-1, Q]] with Q[a, b] = chi(b - a).
        core = torch.where((i == 0) & (j > 0), 1, torch.where((j == 0) & (i > 0), -1, chi))
        return (core + (i == j).long()).float()
    # C (x) [[1, -1], [-1, -1]] + I (x) [[1, 1], [1, -1]] with C = [[0, 1^T], [1, Q]].
    conference = torch.where(((i == 0) | (j == 0)) & (i != j), 1, chi)
    r = torch.arange(2 * size, device=device)[:, None]
    c = torch.arange(2 * size, device=device)[None, :]
    a, s, b, t = r // 2, r % 2, c // 2, c % 2
    outer = torch.where((s == 0) & (t == 0), 1, -1)  # [[1, -1], [-1, -1]]
    inner = torch.where((s == 1) & (t == 1), -1, 1)  # [[1, 1], [1, -1]]
    return (conference[a, b] * outer + (a == b).long() * inner).float()


def sylvester_hadamard(p, device):
    h = torch.ones((1, 1), dtype=torch.float32, device=device)
    while h.shape[0] < p:
        h = torch.cat([torch.cat([h, h], dim=1), torch.cat([h, -h], dim=1)], dim=0)
    return h


def hadamard_matrix(n, device):
    m, p = split_order(n)
    return torch.kron(special_hadamard(m, device), sylvester_hadamard(p, device))


def to_e4m3(values):
    """Round fp32 values in [-448, 448] to the nearest e4m3 value (ties to even), as bf16."""
    return values.to(torch.float8_e4m3fn).to(torch.bfloat16)


def run(x):
    tokens, heads, n = x.shape
    h = hadamard_matrix(n, x.device)
    rotated = (x.reshape(tokens * heads, n).float() @ h) / math.sqrt(n)
    amax = rotated.abs().amax(dim=1, keepdim=True).clamp_min(AMAX_FLOOR)
    scale = amax / FP8_MAX
    y = to_e4m3((rotated / scale).clamp(-FP8_MAX, FP8_MAX)).reshape(tokens, heads, n)
    return y, scale.reshape(tokens, heads)
