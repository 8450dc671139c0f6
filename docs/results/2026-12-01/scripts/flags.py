# Per seed, for b128 (and b64): the wide rows' parameters, the flagged rows of one call (workspace
# counter), and graph-replay time of the source.
#   python3 flags.py SOURCE.cu LABEL SEED...
import sys, pathlib, torch
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from sampling_setup import check_support, parse_args, inputs  # noqa: E402
b, entry, seeds = parse_args()
for seed in seeds:
    args = inputs(entry, seed)
    logits, top_k, top_p, temp = args[:4]
    batch, vocab = logits.shape
    b.run(*args); torch.cuda.synchronize()
    ws = next(iter(b._workspaces.values()))
    off = 2 * ((4 * batch + 255) // 256 * 256)
    flagged = int(ws[off:off + 4].view(torch.int32).item())
    wide = (top_k == 0) | (top_k > 384)
    limited = wide & (top_p < 1.0)
    # Kept-set size of each limited wide row (tokens with mass above them < p), on the GPU.
    probs = torch.softmax(logits[limited] / temp[limited, None], dim=-1)
    srt, _ = probs.sort(dim=-1, descending=True)
    kept = ((srt.cumsum(-1) - srt) < top_p[limited, None]).sum(-1)
    t = [check_support.time_graph_ms(b.run, args, 200, 7) * 1e3 for _ in range(3)]
    print(f"{entry['label']} seed {seed}: flagged {flagged}, wide {int(wide.sum())}, limited wide {int(limited.sum())}, "
          f"kept sizes {sorted(kept.tolist())}, us " + "/".join(f"{x:.2f}" for x in t), flush=True)
