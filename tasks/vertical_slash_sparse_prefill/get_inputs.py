"""Inputs of one vertical-and-slash sparse prefill call.

Queries, keys and values are Gaussian; the queries are scaled so that the logits sm_scale * q.k
have standard deviation LOGIT_STD. The index sets per query head have the shape that the
last-queries estimate returns on long-context models:

* vertical columns: the first SINK_COLUMNS keys (always kept, as attention sinks) and
  n_vertical - SINK_COLUMNS further columns drawn uniformly without replacement from the rest of
  the sequence;
* slash offsets: a local band 0 .. slash_band - 1 (the recent-token window), plus n_lines runs of
  line_width consecutive offsets, one run placed uniformly at random inside each of n_lines
  log-spaced strata of [slash_band, T / 2): long-range diagonals that come in groups.

Both lists are sorted ascending and hold distinct values; every head draws its own.
"""

import math

import torch

LOGIT_STD = 2.0
SINK_COLUMNS = 30


def strata(T, slash_band, n_lines, line_width):
    """The n_lines log-spaced [lo, hi) strata of [slash_band, T // 2) that hold one run each."""
    top = T // 2
    if slash_band + n_lines * line_width > top:
        raise ValueError("the slash runs do not fit below T / 2")
    bounds = [slash_band]
    ratio = top / slash_band
    for k in range(1, n_lines):
        bounds.append(int(math.floor(slash_band * ratio ** (k / n_lines))))
    bounds.append(top)
    spans = list(zip(bounds[:-1], bounds[1:]))
    for lo, hi in spans:
        if hi - lo < line_width:
            raise ValueError(f"stratum [{lo}, {hi}) is narrower than a run of {line_width}")
    return spans


def draw_index_sets(T, h_q, n_vertical, slash_band, n_lines, line_width, spans, gen, device):
    """vertical_idx [h_q, n_vertical] and slash_idx [h_q, slash_band + n_lines * line_width],
    int32, sorted ascending, distinct per head."""
    # Vertical columns: the sinks, then a uniform sample of the other T - SINK_COLUMNS keys.
    extra = n_vertical - SINK_COLUMNS
    sinks = torch.arange(SINK_COLUMNS, device=device).expand(h_q, SINK_COLUMNS)
    # float64 keys and a stable sort: equal keys (rare) still order the same way on every device
    # and in every process, so the draw is a function of the seed.
    ranks = torch.rand((h_q, T - SINK_COLUMNS), generator=gen, device=device, dtype=torch.float64)
    picked = torch.sort(ranks, dim=1, stable=True).indices[:, :extra] + SINK_COLUMNS
    vertical_idx = torch.cat([sinks, picked], dim=1).sort(dim=1).values.to(torch.int32).contiguous()

    # Slash offsets: the band, then one run of line_width offsets inside every stratum.
    band = torch.arange(slash_band, device=device).expand(h_q, slash_band)
    lo = torch.tensor([s[0] for s in spans], device=device, dtype=torch.float64)
    room = torch.tensor([s[1] - s[0] - line_width + 1 for s in spans], device=device,
                        dtype=torch.float64)
    u = torch.rand((h_q, n_lines), generator=gen, device=device, dtype=torch.float64)
    starts = (lo + torch.floor(u * room)).long()  # [h_q, n_lines], in [lo, hi - line_width]
    runs = (starts[:, :, None] + torch.arange(line_width, device=device)).reshape(h_q, -1)
    slash_idx = torch.cat([band, runs], dim=1).sort(dim=1).values.to(torch.int32).contiguous()
    return vertical_idx, slash_idx


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    T = int(config["T"])
    h_q = int(config["h_q"])
    h_kv = int(config["h_kv"])
    head_dim = int(config["head_dim"])
    n_vertical = int(config["n_vertical"])
    n_slash = int(config["n_slash"])
    slash_band = int(config["slash_band"])
    n_lines = int(config["n_lines"])
    line_width = int(config["line_width"])
    sm_scale = float(config["sm_scale"])
    if h_q % h_kv != 0:
        raise ValueError("h_q must be a multiple of h_kv")
    if not SINK_COLUMNS <= n_vertical <= T:
        raise ValueError("n_vertical must lie in [SINK_COLUMNS, T]")
    if slash_band < 1 or n_lines < 1 or line_width < 1:
        raise ValueError("slash_band, n_lines and line_width must be positive")
    if slash_band + n_lines * line_width != n_slash:
        raise ValueError("n_slash must equal slash_band + n_lines * line_width")
    spans = strata(T, slash_band, n_lines, line_width)

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))
    vertical_idx, slash_idx = draw_index_sets(T, h_q, n_vertical, slash_band, n_lines, line_width,
                                              spans, gen, device)
    query_std = LOGIT_STD / (sm_scale * math.sqrt(head_dim))
    q = (torch.randn((T, h_q, head_dim), generator=gen, device=device) * query_std).to(torch.bfloat16)
    k = torch.randn((T, h_kv, head_dim), generator=gen, device=device).to(torch.bfloat16)
    v = torch.randn((T, h_kv, head_dim), generator=gen, device=device).to(torch.bfloat16)
    return [q, k, v, vertical_idx, slash_idx, sm_scale]
