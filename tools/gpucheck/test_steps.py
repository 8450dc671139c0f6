import json
import pathlib
import tempfile
import unittest

from gpucheck import plan, steps


class FakeHost:
    """Records every command; `d2k eval` writes the record `records_for(argv)` returns."""

    def __init__(self, records_for=lambda argv: None, status=0):
        self.commands = []
        self.records_for = records_for
        self.status = status

    def run(self, argv, output=None, env=None, timeout=None, cwd=None):
        self.commands.append(list(argv))
        if output is not None:
            record = self.records_for(argv)
            pathlib.Path(output).write_text(json.dumps(record) if record is not None else "")
        return self.status(argv) if callable(self.status) else self.status


def record_with(verdict, reason="", workloads=("w",)):
    return {"id": 1, "impl_kind": "solution", "workloads": [
        {"workload": w, "verdict": verdict, "reason_code": reason, "message": "", "trials": []}
        for w in workloads]}


class GpuCheckTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.dir.name) / "repo"
        self.out = pathlib.Path(self.dir.name) / "out"
        self.logs = pathlib.Path(self.dir.name) / "logs"
        for path in (self.root, self.out, self.logs):
            path.mkdir()
        self.said = []

    def tearDown(self):
        self.dir.cleanup()

    def check(self, host):
        return steps.GpuCheck(host, self.root, "/b/d2k", self.out, self.logs, say=self.said.append)

    def write(self, relative, text="x"):
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def test_quick_evaluates_every_tasks_baseline_and_expert(self):
        self.write("tasks/a/config.json")
        self.write("tasks/a/baseline/solution.py")
        self.write("tasks/a/expert/solution.py")
        self.write("tasks/b/config.json")
        self.write("tasks/b/baseline/solution.py")
        host = FakeHost(lambda argv: record_with("passed"))
        check = self.check(host)
        check.run_step(plan.Step("quick"))
        self.assertEqual(host.commands, [
            ["/b/d2k", "eval", "a", "--impl", "baseline", "--quick", "--json"],
            ["/b/d2k", "eval", "a", "--impl", "expert", "--quick", "--json"],
            ["/b/d2k", "eval", "b", "--impl", "baseline", "--quick", "--json"]])
        self.assertEqual(check.failures, 0)
        self.assertTrue((self.out / "records.tar.gz").exists())
        self.assertTrue((self.logs / "records" / "a_expert_quick.json").exists())

    def test_an_exploit_must_get_its_headers_verdict_and_the_control_must_pass(self):
        folder = self.root / "tests/exploits/gpu_scale_add"
        self.write("tests/exploits/gpu_scale_add/stream.py",
                   "# expect-verdict: invalid\n# expect-reason: side_stream\n")
        self.write("tests/exploits/gpu_scale_add/cache.cu",
                   "// expect-verdict: invalid\n// expect-reason: cached_work\n")
        control = self.write("tests/fixtures/solutions/gpu_scale_add/triton_kernel.py", "import triton\n")

        def outcome(argv):
            solution = argv[argv.index("--solution") + 1]
            if solution.endswith("stream.py"):
                return record_with("invalid", "side_stream")
            if solution.endswith("cache.cu"):
                return record_with("passed")  # the cache went unnoticed: a failure
            return record_with("passed")

        host = FakeHost(outcome, status=lambda argv: 0)
        check = self.check(host)
        check.run_exploits(folder, "tests/fixtures/tasks/gpu_scale_add", control)
        solutions = [c[c.index("--solution") + 1] for c in host.commands]
        self.assertEqual([pathlib.Path(s).name for s in solutions],
                         ["stream.py", "cache.cu", "triton_kernel.py"])
        self.assertEqual(check.failures, 1)
        self.assertIn("  expected invalid / cached_work: FAILED on w", self.said)

    def test_a_failed_sandbox_run_turns_the_sandbox_off_for_later_evaluations(self):
        host = FakeHost(lambda argv: record_with("passed"),
                        status=lambda argv: 1 if "--no-store" in argv else 0)
        check = self.check(host)
        check.run_step(plan.Step("sandbox"))
        self.write("tasks/t/config.json")
        self.write("tasks/t/expert/solution.py")
        check.run_step(plan.Step("suite", "t/expert"))
        self.assertEqual(host.commands[-1],
                         ["/b/d2k", "eval", "t", "--impl", "expert", "--no-cache", "--no-sandbox",
                          "--json"])
        self.assertEqual(check.failures, 1)

    def test_the_suite_times_a_tasks_anchors_in_the_same_run(self):
        host = FakeHost(lambda argv: record_with("passed"))
        check = self.check(host)
        self.write("tasks/t/config.json")
        self.write("tasks/t/expert/solution.py")
        self.write("tasks/t/anchors/torch_compile.py")
        check.run_step(plan.Step("suite", ""))
        self.assertEqual([c[c.index("--impl") + 1] for c in host.commands],
                         ["reference", "baseline", "expert", "anchor:torch_compile"])
        self.assertTrue((check.records / "t_anchor_torch_compile.json").exists())
        self.assertEqual(check.failures, 0)

    def test_sanitize_profiles_through_d2k_and_reads_the_error_summary(self):
        def run(argv):
            output = pathlib.Path(argv[argv.index("--output") + 1])
            output.mkdir(parents=True, exist_ok=True)
            check_name = argv[argv.index("--check") + 1]
            workload = argv[argv.index("--workload") + 1]
            errors = 3 if check_name == "racecheck" and workload.startswith("deepseek") else 0
            (output / f"topk_topp_sampling-{workload}-expert.{check_name}.log").write_text(
                f"========= ERROR SUMMARY: {errors} errors\n")
            return 0

        host = FakeHost(status=run)
        check = self.check(host)
        check.run_step(plan.Step("sanitize"))
        self.assertEqual(len(host.commands), 4)
        self.assertEqual(host.commands[0][:10],
                         ["/b/d2k", "profile", "topk_topp_sampling", "--impl", "expert",
                          "--workload", "llama31_b64_v128256_p09", "--tool", "sanitizer",
                          "--check"])
        self.assertEqual(check.failures, 1)

    def test_cuda_cache_needs_a_cached_then_a_fresh_build(self):
        self.write(steps.CUDA_SOLUTION, "// the baseline\n")

        def outcome(argv):
            record = record_with("passed")
            record["build"] = {"cached": "changed" not in argv[argv.index("--solution") + 1],
                               "seconds": 1.0, "hash": "h"}
            return record

        check = self.check(FakeHost(outcome))
        check.run_step(plan.Step("cuda-cache"))
        self.assertEqual(check.failures, 0)
        changed = (self.logs / "changed" / "solution.cu").read_text()
        self.assertTrue(changed.startswith("// the baseline\n// changed by the GPU check"))

    def test_timing_data_pairs_cold_with_hot_and_times_the_suites_records_independently(self):
        (self.logs / "records").mkdir()
        for name in ("t_expert", "t_reference", "t_baseline", "t_expert_quick"):
            (self.logs / "records" / f"{name}.json").write_text("{}")
        host = FakeHost(lambda argv: record_with("passed"))
        check = self.check(host)
        check.run_step(plan.Step("timing-data"))
        evals = [c for c in host.commands if c[1] == "eval"]
        self.assertEqual([c[c.index("--cache") + 1] for c in evals], ["cold", "hot", "cold", "hot"])
        pair, fidelity, overhead = host.commands[len(evals):]
        self.assertEqual(pair[1:3], ["bench/timing_tables.py", "pair"])
        self.assertEqual(len(pair[3:]), 4)
        self.assertEqual(fidelity[1], "bench/fidelity.py")
        self.assertEqual([pathlib.Path(p).stem for p in fidelity[6:]], ["t_expert", "t_reference"])
        self.assertEqual(sorted(pathlib.Path(p).stem for p in overhead[3:]),
                         ["t_baseline", "t_expert", "t_reference"])
        self.assertEqual(check.failures, 0)

    def test_timing_data_without_suite_records_fails(self):
        check = self.check(FakeHost(lambda argv: record_with("passed")))
        check.run_step(plan.Step("timing-data"))
        self.assertEqual(check.failures, 1)


if __name__ == "__main__":
    unittest.main()
