"""python3 -m gpucheck [STEP ...] (with tools/ on PYTHONPATH; tools/gpu_check.sh does that).

Builds d2k in build-gpu/ and runs the named steps in order. Steps:
  sandbox        a correct Triton fixture under the candidate sandbox; if it fails there, the
                 later evaluations run with --no-sandbox and say so (a finding to fix)
  tests          the unit-test binaries (the CPU end-to-end tests run in CI)
  overhead       timing sanity: harness overhead against bare eager launches and a bare CUDA
                 graph (bench/harness_overhead.sh)
  floor          graph-replay floors: an empty kernel, two kernels chained by programmatic
                 dependent launch, and one read of each sampling workload's logits
  doctor         `d2k doctor`: toolchain and measured ceilings (later evaluations show %SOL)
  cuda           the CUDA C++ Muon baseline through the native ABI, from an empty build cache
  cuda-cache     that .cu again unchanged (cached build) and changed (rebuilt), first workload
  agent          a scripted agent trajectory on the Muon task: a wrong submission, then the
                 baseline's code; the run's final selection must be the baseline
  report         `d2k report --format md` of the store
  failures       the GPU failure fixtures (crash, device hang, illegal address)
  exploits       the GPU exploit classes (tests/exploits/gpu_*/, Python and CUDA C++); each must
                 get the verdict and reason its header declares
  muon-exploits  the Muon task's exploits (tests/exploits/muon_orthogonalization/) on its first
                 workload, and the CUDA C++ baseline they wrap, which must pass
  repeat[=N]     N (default 5) independent evaluations of the Muon baseline
  sanitize       `d2k profile --tool sanitizer` (memcheck, racecheck) of the sampling expert on
                 its wide-row and per-row workloads; any reported error fails the step
  quick[=LIST]   `d2k eval --quick` of the baseline and expert of every task, or of the
                 comma-separated TASKs
  suite[=LIST]   `d2k eval` of every task with an expert/, for reference, baseline and expert;
                 LIST is TASK[/IMPL[+IMPL...]][,TASK...], e.g. muon_orthogonalization/expert,fused_moe
  timing-data    docs/timing.md's data into $OUT: the expert's cold and hot latency on an
                 L2-sized and an HBM-sized workload (cache-policy.json), the fidelity of the
                 suite step's expert and reference records against do_bench and a bare graph
                 loop (fidelity.json), and the evaluator's time per workload (overhead.json);
                 run it after `suite` in the same call, then commit them as results/<device>-*.json
A step written STEP@N runs on GPU N only (CUDA_VISIBLE_DEVICES=N), in the background: the steps of
one GPU run in order, different GPUs at once, after the steps without @. Evaluations on different
GPUs do not disturb each other's timing; the store takes their writes in turn.
Aliases: check = tests quick overhead (the default); native = doctor cuda cuda-cache.

Everything lands in $OUT (default ./gpu-check-out): gpu_check.log (tools/gpu_check.sh), records.tar.gz (one JSON file
per evaluation under records/; the records of an earlier run into the same $OUT move under
records/earlier/), and the SQLite store ($D2K_SEED_STORE, when given, is copied in first so that
runs accumulate). Build logs and other intermediates stay in $LOGS (default /tmp/d2k-gpu-check).
A host whose package manager cannot reach its mirrors builds against the packages that
tools/prepare_device.sh unpacked into .device/root, when that folder is there.
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tarfile

from . import host, plan, steps

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = ROOT / "build-gpu"


def keep_earlier_records(out, logs):
    """A run into an $OUT that holds records.tar.gz keeps those records under records/earlier/."""
    archive = out / "records.tar.gz"
    if not archive.exists():
        return
    unpacked = logs / "unpacked"
    shutil.rmtree(unpacked, ignore_errors=True)
    with tarfile.open(archive) as tar:
        tar.extractall(unpacked)
    (unpacked / "records").rename(logs / "records" / "earlier")


def seed_store(out):
    store = out / "d2k-store.sqlite"
    os.environ["D2K_STORE"] = str(store)
    seed = os.environ.get("D2K_SEED_STORE")
    if not seed:
        return True
    # A seed store that is not here would silently start an empty store and renumber every
    # evaluation, so it stops the run.
    if not pathlib.Path(seed).is_file():
        print(f"D2K_SEED_STORE={seed}: no such file on this host")
        return False
    if not store.exists():
        shutil.copy(seed, store)
    return True


def build(say, logs, python):
    say("=== environment")
    for command in (["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.sm,"
                     "clocks.max.sm", "--format=csv"], ["nvcc", "--version"],
                    [python, "-c", "import sys, torch, triton; print('python', sys.version.split()[0],"
                     " 'torch', torch.__version__, 'cuda', torch.version.cuda, 'triton',"
                     " triton.__version__)"]):
        result = subprocess.run(command, capture_output=True, text=True)
        say((result.stdout or result.stderr).strip())
    say("=== build")
    configure = ["cmake", "-S", str(ROOT), "-B", str(BUILD), "-G", "Ninja",
                 "-DCMAKE_BUILD_TYPE=Release", f"-DD2K_PYTHON={python}"]
    carried = ROOT / ".device" / "root" / "usr"
    if carried.is_dir():
        configure.append(f"-DCMAKE_PREFIX_PATH={carried}")
    if subprocess.run(configure, stdout=open(logs / "cmake.log", "w"),
                      stderr=subprocess.STDOUT).returncode != 0:
        say((logs / "cmake.log").read_text()[-4000:])
        return False
    result = subprocess.run(["cmake", "--build", str(BUILD), "-j", str(os.cpu_count() or 1),
                             "--target", "d2k"], capture_output=True, text=True)
    say("\n".join((result.stdout + result.stderr).splitlines()[-3:]))
    return (BUILD / "d2k").exists() and result.returncode == 0


def main(argv):
    lane = argv[:1] == ["--lane"]
    words = argv[1:] if lane else argv
    try:
        the_plan = plan.parse_plan(words)
    except plan.PlanError as error:
        print(error)
        return 2
    os.chdir(ROOT)
    out = pathlib.Path(os.environ.get("OUT", ROOT / "gpu-check-out")).resolve()
    logs = pathlib.Path(os.environ.get("LOGS", "/tmp/d2k-gpu-check"))
    out.mkdir(parents=True, exist_ok=True)
    python = shutil.which("python3") or sys.executable
    if not lane:
        shutil.rmtree(logs / "records", ignore_errors=True)
        (logs / "records").mkdir(parents=True)
        keep_earlier_records(out, logs)
        if not seed_store(out):
            return 2
    if os.path.isdir("/dev/shm"):
        os.environ["D2K_SCRATCH"] = "/dev/shm"
    os.environ["PYTHONUNBUFFERED"] = "1"
    os.environ.setdefault("D2K_CACHE", str(logs / "native-cache"))
    say = print
    if not lane and not build(say, logs, python):
        say("build failed")
        return 1
    check = steps.GpuCheck(host.Host(), ROOT, BUILD / "d2k", out, logs, python=python, say=say)
    for step in the_plan.steps:
        check.run_step(step)
    lanes = []
    for gpu, lane_steps in the_plan.lanes.items():
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=gpu)
        env["PYTHONPATH"] = str(ROOT / "tools")
        words = [str(step) for step in lane_steps]
        process = subprocess.Popen([sys.executable, "-m", "gpucheck", "--lane", *words], env=env,
                                   stdout=open(out / f"gpu{gpu}.log", "w"), stderr=subprocess.STDOUT)
        lanes.append((gpu, words, process))
        say(f"GPU {gpu} runs in the background: {' '.join(words)} (log: gpu{gpu}.log)")
    for gpu, words, process in lanes:
        status = process.wait()
        check.failures += status
        say(f"=== GPU {gpu} finished {' '.join(words)} with {status} failed steps")
    check.pack_records()
    say(f"=== done: {check.failures} failed steps")
    return min(check.failures, 255)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
