# Which rows decide last, and what they are: per seed, one call of a make_timeline2.py source
# (decider start/end per row) and the rows' parameters, kept-set sizes and flags.
#   python3 rows.py TIMELINE.cu LABEL SEED...
import sys, pathlib, torch
import numpy as np
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from sampling_setup import parse_args, inputs, timeline_of_one_call  # noqa: E402
b, entry, seeds = parse_args()
buf = np.zeros(2 << 20, dtype=np.uint64)
def offsets(batch, chunks):  # WorkspaceLayout
    sizes = [4 * batch, 4 * batch, 16, 48 * batch * chunks, 4 * batch * chunks * 384, 4 * batch * chunks * 384,
             64 * batch, 4 * batch * chunks * 8, 4 * batch * chunks * 256]
    out, at = [], 0
    for s in sizes:
        out.append(at); at += (s + 255) // 256 * 256
    return out
for seed in seeds:
    args = inputs(entry, seed)
    logits, top_k, top_p, temp = args[:4]
    batch, vocab = logits.shape
    chunks = (vocab + 8191) // 8192
    timeline_of_one_call(b, args, buf)
    k1 = buf[:2 * batch * chunks].reshape(-1, 2).astype(np.int64)
    t0 = k1[:, 0].min()
    d = buf[1 << 19:(1 << 19) + 8 * batch].reshape(-1, 8).astype(np.int64)
    start = (d[:, 0] - t0) / 1e3; end = (d[:, 5] - t0) / 1e3
    ws = next(iter(b._workspaces.values()))
    off = offsets(batch, chunks)
    flagged_n = int(ws[off[2]:off[2] + 4].view(torch.int32).item())
    flagged = set(ws[off[6]:off[6] + 64 * flagged_n].view(torch.int32).view(-1, 16)[:, 0].tolist())
    probs = torch.softmax(logits / temp[:, None], dim=-1)
    srt, _ = probs.sort(dim=-1, descending=True)
    above = srt.cumsum(-1) - srt
    k_eff = torch.where(top_k <= 0, torch.full_like(top_k, vocab), top_k.clamp(max=vocab))
    kept = ((above < top_p[:, None]) & (torch.arange(vocab, device=logits.device)[None, :] < k_eff[:, None])).sum(-1)
    order = np.argsort(-end)
    print(f"{entry['label']} seed {seed}: k1 last end {((k1[:, 1] - t0) / 1e3).max():.2f}, flagged {sorted(flagged)}", flush=True)
    for r in order[:12]:
        print(f"  row {r:3d}: decide {start[r]:.2f}-{end[r]:.2f} ({end[r] - start[r]:.2f} us) top_k {int(top_k[r])} "
              f"top_p {float(top_p[r]):.3f} temp {float(temp[r]):.3f} kept {int(kept[r])} max prob {float(srt[r, 0]):.3f}"
              f"{' flagged' if r in flagged else ''}", flush=True)
