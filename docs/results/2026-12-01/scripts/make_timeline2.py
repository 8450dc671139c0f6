# make_timeline.py's copy of a source, plus each verifier CTA's exit (globaltimer, slot 5 of its
# CTA index, as the deciders' ends).
#   python3 make_timeline2.py SOURCE.cu OUT.cu
import pathlib, subprocess, sys
here = pathlib.Path(__file__).resolve().parent
# make_timeline.py sits beside this script here (docs/results/.../scripts), one folder up where it ran.
base = next(d / "make_timeline.py" for d in (here, here.parent) if (d / "make_timeline.py").exists())
subprocess.run([sys.executable, str(base), sys.argv[1], sys.argv[2]], check=True)
p = pathlib.Path(sys.argv[2]); src = p.read_text()
old = "    verify_flagged_rows(pb, ws, lists_and_weights, s);\n"
assert src.count(old) == 1
src = src.replace(old, old + "    if (threadIdx.x == 0) d2k_tl[((pb.seed & 1) << 20) + kTlDecide + 8 * blockIdx.x + 5] = d2k_gtime();\n")
p.write_text(src)
