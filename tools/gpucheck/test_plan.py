import unittest

from gpucheck import plan


class ParsePlanTest(unittest.TestCase):
    def test_the_default_is_the_check_alias(self):
        self.assertEqual([str(s) for s in plan.parse_plan([]).steps], ["tests", "quick", "overhead"])

    def test_steps_arguments_aliases_and_lanes(self):
        parsed = plan.parse_plan(["native", "suite=fused_moe/expert", "exploits@1", "repeat=3@1",
                                  "quick@0"])
        self.assertEqual([str(s) for s in parsed.steps],
                         ["doctor", "cuda", "cuda-cache", "suite=fused_moe/expert"])
        self.assertEqual({gpu: [str(s) for s in steps] for gpu, steps in parsed.lanes.items()},
                         {"1": ["exploits", "repeat=3"], "0": ["quick"]})

    def test_an_unknown_step_or_gpu_is_refused(self):
        with self.assertRaisesRegex(plan.PlanError, "unknown step: smoke"):
            plan.parse_plan(["smoke"])
        with self.assertRaisesRegex(plan.PlanError, "GPU index"):
            plan.parse_plan(["quick@x"])


class SuiteEntriesTest(unittest.TestCase):
    def test_every_task_with_an_expert_by_default(self):
        self.assertEqual(plan.suite_entries("", ["a", "b"]),
                         [("a", ["reference", "baseline", "expert"]),
                          ("b", ["reference", "baseline", "expert"])])

    def test_a_task_without_implementations_gets_its_anchors(self):
        self.assertEqual(plan.suite_entries("moe,muon/expert", [],
                                            lambda task: ["torch_compile"] if task == "moe" else []),
                         [("moe", ["reference", "baseline", "expert", "anchor:torch_compile"]),
                          ("muon", ["expert"])])

    def test_a_list_names_tasks_and_implementations(self):
        self.assertEqual(plan.suite_entries("muon/expert,moe/reference+baseline,paged", []),
                         [("muon", ["expert"]), ("moe", ["reference", "baseline"]),
                          ("paged", ["reference", "baseline", "expert"])])


if __name__ == "__main__":
    unittest.main()
