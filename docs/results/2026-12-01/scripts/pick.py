# Picks the variant of an ab.py run to keep: it must gain on b64 and on both b128 inputs, and lose
# at most 0.3 us on b256 and 0.2 us on b1; prints its name, or the reference's (the first source).
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(seed \S+: )?(\S+) (.*)", line.strip())
    if not m or "|" not in line: continue
    key = (m.group(1) or "") + m.group(2)
    for part in m.group(3).split(" | "):
        name, times = part.split(" ", 1)
        vals = [float(t) for t in times.split("/")]
        rows.setdefault(key, {})[name] = sum(vals) / len(vals)
names = list(next(iter(rows.values())).keys())
ref = names[0]
def delta(label, n):
    return [v[n] - v[ref] for k, v in rows.items() if label in k]
best, best_gain = ref, 0.0
for n in names[1:]:
    d64, d128, d256, d1 = delta("b64", n), delta("b128", n), delta("b256", n), delta("b1_", n)
    ok = all(x < -0.1 for x in d64) and all(x < -0.05 for x in d128) and all(x < 0.3 for x in d256) and all(x < 0.2 for x in d1)
    gain = -(sum(d64) + sum(d128))
    print(n, "b64", d64, "b128", d128, "b256", d256, "b1", d1, "keep" if ok else "drop", file=sys.stderr)
    if ok and gain > best_gain: best, best_gain = n, gain
print(best)
