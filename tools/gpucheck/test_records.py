import unittest

from gpucheck import headers, records


def workload(name, verdict="passed", reason="", message="", mean=None, audit=None):
    w = {"workload": name, "verdict": verdict, "reason_code": reason, "message": message,
         "trials": [{"outputs": [{"rel_norm_error": 1e-3}, {"rel_norm_error": 2e-3}]}]}
    if mean is not None:
        w["latency"] = {"mean_s": mean, "cv": 0.01}
    if audit is not None:
        w["audit"] = audit
    return w


class SummarizeTest(unittest.TestCase):
    def test_a_missing_record_says_so(self):
        self.assertEqual(records.summarize(None, "x", 2), ["x: no JSON record, exit 2"])

    def test_one_line_per_workload_with_failures_and_audits(self):
        record = {"id": 7, "impl_kind": "expert", "workloads": [
            workload("small", mean=0.002),
            workload("large", "invalid", "side_stream", "two streams",
                     audit={"unavailable": "no CUPTI"})]}
        lines = records.summarize(record, "run", 1)
        self.assertEqual(lines[0], "run: exit 1, evaluation 7, impl expert")
        self.assertIn("2.0000 ms", lines[1])
        self.assertIn("max_err 2.00e-03", lines[1])
        self.assertIn("side_stream", lines[2])
        self.assertEqual(lines[3], "    two streams")
        self.assertEqual(lines[4], "    audit: not audited: no CUPTI")

    def test_a_traced_audit_lists_kernels_and_streams(self):
        audit = {"calls": 2, "kernels": [{"name": "k", "stream": 3, "duration_s": 1e-6}],
                 "transfers": [], "synchronizations": [], "harness_stream": 3}
        lines = records.audit_lines(workload("w", audit=audit))
        self.assertIn("2 calls, 1 kernels (0.001 ms)", lines[0])
        self.assertIn("streams [3] (harness 3)", lines[0])
        self.assertEqual(lines[1], "      k")


class UnmetTest(unittest.TestCase):
    def test_verdict_reason_and_message_must_match(self):
        record = {"workloads": [workload("a", "invalid", "side_stream", "saw two streams"),
                                workload("b", "invalid", "forbidden_call")]}
        expectation = headers.Expectation("invalid", "side_stream", ["two streams"])
        self.assertEqual(records.unmet(record, expectation), ["b"])
        self.assertEqual(records.unmet(record, headers.Expectation()), ["a", "b"])
        self.assertEqual(records.unmet(None, expectation), ["(no record)"])


class OtherReadingsTest(unittest.TestCase):
    def test_repeatability(self):
        runs = [{"workloads": [workload("w", mean=m)]} for m in (0.001, 0.001)]
        self.assertEqual(records.repeatability(runs), ["w" + " " * 29 + "    1.000    1.000  0.000%"])

    def test_sanitizer_error_summary(self):
        self.assertEqual(records.sanitizer_errors("x\n========= ERROR SUMMARY: 0 errors\n"), 0)
        self.assertEqual(records.sanitizer_errors("========= ERROR SUMMARY: 12 errors"), 12)
        self.assertIsNone(records.sanitizer_errors("crashed"))

    def test_build_line(self):
        record = {"build": {"cached": True, "seconds": 0.1, "hash": "h"}}
        self.assertEqual(records.build_line(record, "n"),
                         "n" + " " * 29 + " cached=True seconds=0.1 hash=h")


if __name__ == "__main__":
    unittest.main()
