"""What the CPU checks of every task (tests/task_references/<task>.py) share: loading the task's
own modules, counting checks, and the relative error the evaluator's gate measures."""

import importlib.util
from pathlib import Path

TASKS = Path(__file__).resolve().parents[3] / "tasks"


def load_module(task, name):
    """tasks/<task>/<name>.py as a module of its own; `name` may name a subfolder's file
    ("expert/solution")."""
    spec = importlib.util.spec_from_file_location(f"{task}_{name.replace('/', '_')}",
                                                  TASKS / task / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rel_err(out, ref):
    """The relative Frobenius error of `out` against `ref`, in float64."""
    out, ref = out.double(), ref.double()
    return float((out - ref).norm() / ref.norm())


class Checks:
    """check(ok, what) counts one check and prints what failed; finish() prints the count and
    ends the script, with exit status 1 when any check failed."""

    def __init__(self):
        self.passed = 0
        self.failures = []

    def __call__(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failures.append(what)
            print("FAIL:", what)

    def finish(self):
        print(f"{self.passed} passed, {len(self.failures)} failed")
        raise SystemExit(1 if self.failures else 0)
