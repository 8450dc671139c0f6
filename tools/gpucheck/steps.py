"""The steps of the GPU check. Each calls `d2k` (or a bench/ program) and counts a failed step."""

import datetime
import fcntl
import json
import os
import pathlib
import shutil
import tarfile

from . import headers, plan, records

GPU_FIXTURE = "tests/fixtures/tasks/gpu_scale_add"
TRITON_KERNEL = "tests/fixtures/solutions/gpu_scale_add/triton_kernel.py"
CUDA_SOLUTION = "tasks/muon_orthogonalization/baseline/solution.cu"
MUON_FIRST_WORKLOAD = "production_b32_m2048_n5464"
# The sampling expert's wide-row and per-row workloads: its inter-CTA flags, bulk copies and
# barriers under compute-sanitizer.
SANITIZE = ("topk_topp_sampling", "expert",
            ("llama31_b64_v128256_p09", "deepseek_v3_b128_v129280_per_row"),
            ("memcheck", "racecheck"))
SANITIZE_TIMEOUT_S = 600
# The hot-against-cold pairs of docs/timing.md: one workload whose inputs fit in the L2 and one
# that streams far more than it.
CACHE_PAIRS = (("topk_topp_sampling", "llama31_b64_v128256_p09"),
               ("paged_gqa_decode", "llama3_70b_b1_ctx131072_page64"))


class GpuCheck:
    def __init__(self, host, root, d2k, out, logs, python="python3", say=print):
        self.host = host
        self.root = pathlib.Path(root)
        self.d2k = str(d2k)
        self.out = pathlib.Path(out)
        self.logs = pathlib.Path(logs)
        self.records = self.logs / "records"
        self.python = python
        self.say = say
        self.eval_flags = []
        self.failures = 0

    # --- helpers ---------------------------------------------------------------------------

    def heading(self, text):
        self.say("")
        self.say(f"=== {text} ({datetime.datetime.now(datetime.timezone.utc):%H:%M:%S})")

    def fail(self, what=None):
        if what:
            self.say(what)
        self.failures += 1

    def pack_records(self):
        """records.tar.gz in $OUT, after every evaluation: one file to carry back, complete up
        to the last evaluation even when the run is cut short."""
        self.records.mkdir(parents=True, exist_ok=True)
        with open(self.logs / "records.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            partial = self.out / "records.tar.gz.partial"
            with tarfile.open(partial, "w:gz") as archive:
                archive.add(self.records, arcname="records")
            os.replace(partial, self.out / "records.tar.gz")

    def record(self, name, *arguments):
        """One `d2k eval`, its JSON kept as records/NAME.json and summarized; returns the record
        (None when there is no JSON) and the exit status."""
        self.records.mkdir(parents=True, exist_ok=True)
        path = self.records / f"{name}.json"
        status = self.host.run([self.d2k, "eval", *arguments, *self.eval_flags, "--json"],
                               output=path)
        record = records.load(path)
        for line in records.summarize(record, name, status):
            self.say(line)
        self.pack_records()
        return record, status

    def tasks(self):
        return sorted(p.parent.name for p in (self.root / "tasks").glob("*/config.json"))

    def anchors(self, task):
        return sorted(p.stem for p in (self.root / "tasks" / task / "anchors").glob("*.py"))

    def tasks_with_expert(self):
        return [t for t in self.tasks() if (self.root / "tasks" / t / "expert").is_dir()]

    # --- steps -----------------------------------------------------------------------------

    def step_sandbox(self, _):
        self.heading("sandbox: a correct Triton fixture must pass inside the candidate sandbox")
        status = self.host.run([self.d2k, "eval", GPU_FIXTURE, "--solution", TRITON_KERNEL,
                                "--no-store"])
        if status != 0:
            self.fail(f"the sandbox failed a correct candidate (exit {status}): later "
                      "evaluations run with --no-sandbox")
            self.eval_flags = ["--no-sandbox"]

    def step_tests(self, _):
        self.heading("unit tests (the CPU end-to-end tests run in CI)")
        build = self.d2k_build_dir()
        if self.host.run(["cmake", "--build", str(build), "-j", str(os.cpu_count() or 1)],
                         output=self.logs / "build-tests.log") != 0:
            self.fail("building the tests failed: see build-tests.log")
        for binary in sorted((build / "tests").glob("d2k_*_tests")):
            if "e2e" in binary.name:
                continue
            log = self.logs / f"{binary.name}.log"
            status = self.host.run([str(binary), "--gtest_brief=1"], output=log)
            if status == 0:
                self.say(f"{binary.name}: passed")
            else:
                self.fail(f"{binary.name} FAILED (log: {log}); its last lines:")
                for line in log.read_text(errors="replace").splitlines()[-20:]:
                    self.say("  " + line)

    def d2k_build_dir(self):
        return pathlib.Path(self.d2k).parent

    def step_overhead(self, _):
        self.heading("timing sanity: harness overhead against bare launches and a bare CUDA graph")
        if self.host.run(["bench/harness_overhead.sh", self.d2k, str(self.logs)]) != 0:
            self.fail()

    def step_floor(self, _):
        self.heading("floors: an empty launch, a PDL pair, one read of each sampling shape")
        config = json.loads((self.root / "tasks/topk_topp_sampling/config.json").read_text())
        shapes = [str(v) for w in config["workloads"] for v in (w["batch"], w["vocab"])]
        binary = str(self.logs / "launch_and_read_floor")
        if (self.host.run(["nvcc", "-gencode=arch=compute_90a,code=sm_90a", "-O3", "-std=c++17",
                           "bench/launch_and_read_floor.cu", "-o", binary]) != 0
                or self.host.run([binary, *shapes]) != 0):
            self.fail()

    def step_doctor(self, _):
        self.heading("d2k doctor: toolchain and measured ceilings")
        if self.host.run([self.d2k, "doctor"]) != 0:
            self.fail()

    def step_cuda(self, _):
        shutil.rmtree(os.environ.get("D2K_CACHE", self.logs / "native-cache"), ignore_errors=True)
        self.heading("CUDA C++ Muon baseline through the native ABI, empty build cache")
        if self.record("muon_baseline_cuda", "muon_orthogonalization", "--solution",
                       CUDA_SOLUTION, "--no-cache")[1] != 0:
            self.fail()

    def step_cuda_cache(self, _):
        self.heading("the same .cu again: the build must come from the cache")
        unchanged, status = self.record("muon_baseline_cuda_unchanged", "muon_orthogonalization",
                                        "--solution", CUDA_SOLUTION, "--workload",
                                        MUON_FIRST_WORKLOAD, "--no-cache")
        if status != 0 or not ((unchanged or {}).get("build") or {}).get("cached"):
            self.fail("the unchanged .cu was not taken from the build cache")
        self.heading("a changed .cu: it must be rebuilt")
        changed_source = self.logs / "changed" / "solution.cu"
        changed_source.parent.mkdir(parents=True, exist_ok=True)
        changed_source.write_text((self.root / CUDA_SOLUTION).read_text() +
                                  f"// changed by the GPU check at {datetime.datetime.now()}\n")
        changed, status = self.record("muon_baseline_cuda_changed", "muon_orthogonalization",
                                      "--solution", str(changed_source), "--workload",
                                      MUON_FIRST_WORKLOAD, "--no-cache")
        if status != 0 or ((changed or {}).get("build") or {}).get("cached") is not False:
            self.fail("the changed .cu was not rebuilt")
        for name, record in (("muon_baseline_cuda_unchanged", unchanged),
                             ("muon_baseline_cuda_changed", changed)):
            self.say(records.build_line(record, name))

    def step_agent(self, _):
        self.heading("scripted agent trajectory on the Muon task (a wrong submission, then the "
                     "baseline's code)")
        folder = self.logs / "agent-muon"
        shutil.rmtree(folder, ignore_errors=True)
        baseline = self.root / "tasks/muon_orthogonalization/baseline/solution.py"
        agent = f"{self.python} {self.root / 'tests/agents/fake_agent.py'} --correct {baseline}"
        path = self.records / "agent_run.json"
        self.records.mkdir(parents=True, exist_ok=True)
        status = self.host.run([self.d2k, "agent", "run", "muon_orthogonalization", "--config",
                                "none", "--workspace", str(folder / "ws"), "--agent", agent,
                                "--json"], output=path)
        outcome = records.load(path)
        if outcome is None:
            self.fail(f"no agent run JSON (exit {status})")
            return
        self.say(json.dumps(outcome, indent=1)[:4000])
        if status != 0:
            self.fail()

    def step_report(self, _):
        self.heading("d2k report --format md")
        if self.host.run([self.d2k, "report", "--format", "md"]) != 0:
            self.fail()

    def step_failures(self, _):
        self.heading("GPU failure fixtures: each fails its first workload, the next still passes")
        for solution in sorted((self.root / "tests/fixtures/solutions/gpu_scale_add").glob("*.py")):
            self.record(f"gpu_fixture_{solution.stem}", GPU_FIXTURE, "--solution", str(solution))

    def run_exploits(self, folder, task, control, *arguments):
        """Every .py and .cu candidate of `folder` against `task`, then the legitimate `control`,
        which must pass the runtime audit too; each must get its header's verdict and reason."""
        candidates = sorted(folder.glob("*.py")) + sorted(folder.glob("*.cu")) + [control]
        for solution in candidates:
            expectation = headers.read_expectation(solution)
            name = f"gpu_exploit_{folder.name}_{solution.stem}"
            record, _ = self.record(name, task, "--solution", str(solution), *arguments)
            if record is not None:
                self.say(f"  sandbox: {record.get('sandbox', '')}")
            wrong = records.unmet(record, expectation)
            expected = expectation.verdict + (f" / {expectation.reason}" if expectation.reason else "")
            self.say(f"  expected {expected}: {'FAILED on ' + ', '.join(wrong) if wrong else 'ok'}")
            if wrong:
                self.fail()

    def step_exploits(self, _):
        self.heading("GPU exploit classes: each gets its header's verdict; a legitimate Triton "
                     "kernel passes")
        # tests/exploits/<task>/ runs against tests/fixtures/tasks/<task>; the legitimate Triton
        # kernel goes last for each and must pass the runtime audit too.
        for folder in sorted((self.root / "tests/exploits").glob("gpu_*/")):
            self.run_exploits(folder, f"tests/fixtures/tasks/{folder.name}",
                              self.root / TRITON_KERNEL)

    def step_muon_exploits(self, _):
        self.heading(f"Muon exploit classes on {MUON_FIRST_WORKLOAD}; the CUDA C++ baseline they "
                     "wrap passes")
        self.run_exploits(self.root / "tests/exploits/muon_orthogonalization",
                          "muon_orthogonalization", self.root / CUDA_SOLUTION,
                          "--workload", MUON_FIRST_WORKLOAD)

    def step_repeat(self, argument):
        count = int(argument or 5)
        self.heading(f"repeatability: {count} independent evaluations of the Muon baseline")
        runs = []
        for index in range(1, count + 1):
            record, _ = self.record(f"muon_baseline_repeat_{index}", "muon_orthogonalization",
                                    "--impl", "baseline", "--no-cache")
            if record is not None:
                runs.append(record)
        for line in records.repeatability(runs):
            self.say(line)

    def step_sanitize(self, _):
        task, impl, workloads, checks = SANITIZE
        for workload in workloads:
            for check in checks:
                self.heading(f"d2k profile --tool sanitizer --check {check}: {task} {impl} {workload}")
                output = self.logs / "sanitize"
                status = self.host.run([self.d2k, "profile", task, "--impl", impl, "--workload",
                                        workload, "--tool", "sanitizer", "--check", check,
                                        "--calls", "1", "--output", str(output)],
                                       timeout=SANITIZE_TIMEOUT_S)
                log = output / f"{task}-{workload}-{impl}.{check}.log"
                errors = records.sanitizer_errors(log.read_text()) if log.exists() else None
                self.say(f"exit {status}, {errors if errors is not None else 'no'} errors reported ({log})")
                if status != 0 or errors != 0:
                    self.fail()

    def step_quick(self, argument):
        for task in argument.split(",") if argument else self.tasks():
            for impl in ("baseline", "expert"):
                if not (self.root / "tasks" / task / impl).is_dir():
                    continue
                self.heading(f"d2k eval {task} --impl {impl} --quick")
                if self.record(f"{task}_{impl}_quick", task, "--impl", impl, "--quick")[1] != 0:
                    self.fail()

    def step_suite(self, argument):
        for task, impls in plan.suite_entries(argument, self.tasks_with_expert(), self.anchors):
            for impl in impls:
                self.heading(f"d2k eval {task} --impl {impl}")
                name = f"{task}_{impl.replace(':', '_')}"
                if self.record(name, task, "--impl", impl, "--no-cache")[1] != 0:
                    self.fail()

    def step_timing_data(self, _):
        self.heading("docs/timing.md's data: cache policy pairs, fidelity, evaluator time")
        pairs = []
        for task, workload in CACHE_PAIRS:
            for cache in ("cold", "hot"):
                name = f"{task}_expert_{cache}_{workload}"
                if self.record(name, task, "--impl", "expert", "--workload", workload,
                               "--cache", cache, "--no-cache")[1] != 0:
                    self.fail()
                pairs.append(str(self.records / f"{name}.json"))
        if self.host.run([self.python, "bench/timing_tables.py", "pair", *pairs],
                         output=self.out / "cache-policy.json", cwd=self.root) != 0:
            self.fail("pairing the cache-policy records failed")
        suite = [str(p) for impl in ("expert", "reference")
                 for p in sorted(self.records.glob(f"*_{impl}.json"))]
        if not suite:
            self.fail("no expert or reference records: run the suite step first, in this call")
            return
        if self.host.run([self.python, "bench/fidelity.py", "--d2k", self.d2k, "--out",
                          str(self.out / "fidelity.json"), *suite], cwd=self.root) != 0:
            self.fail("bench/fidelity.py failed")
        if self.host.run([self.python, "bench/evaluator_overhead.py", "--json",
                          *[str(p) for p in sorted(self.records.glob("*.json"))
                            if p.stem.endswith(("_expert", "_reference", "_baseline"))]],
                         output=self.out / "overhead.json", cwd=self.root) != 0:
            self.fail("bench/evaluator_overhead.py failed")

    def run_step(self, step):
        getattr(self, "step_" + step.name.replace("-", "_"))(step.argument)
