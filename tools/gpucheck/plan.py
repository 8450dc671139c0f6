"""Which steps run, in which order, on which GPU (tools/gpu_check.sh's arguments)."""

import dataclasses

STEPS = (
    "sandbox", "tests", "overhead", "floor", "doctor", "cuda", "cuda-cache", "agent", "report",
    "failures", "exploits", "muon-exploits", "repeat", "sanitize", "quick", "suite", "timing-data",
)
ALIASES = {
    "check": ("tests", "quick", "overhead"),
    "native": ("doctor", "cuda", "cuda-cache"),
}
DEFAULT = ("check",)


class PlanError(ValueError):
    pass


@dataclasses.dataclass(frozen=True)
class Step:
    name: str
    argument: str = ""  # what follows `=`, e.g. suite=fused_moe/expert

    def __str__(self):
        return f"{self.name}={self.argument}" if self.argument else self.name


@dataclasses.dataclass
class Plan:
    steps: list  # run in order, in the foreground
    lanes: dict  # GPU index (a string) -> its steps, run in order, lanes at once


def parse_plan(words):
    """STEP, STEP=ARGUMENT, STEP@GPU or an alias, for each word (the default when none)."""
    plan = Plan(steps=[], lanes={})
    for word in words or DEFAULT:
        if word in ALIASES:
            plan.steps.extend(Step(name) for name in ALIASES[word])
            continue
        spec, _, gpu = word.partition("@")
        name, _, argument = spec.partition("=")
        if name not in STEPS:
            raise PlanError(f"unknown step: {word} (steps: {', '.join(STEPS)}; aliases: "
                            f"{', '.join(ALIASES)})")
        if "@" in word and not gpu.isdigit():
            raise PlanError(f"{word}: the part after @ must be a GPU index")
        step = Step(name, argument)
        if gpu:
            plan.lanes.setdefault(gpu, []).append(step)
        else:
            plan.steps.append(step)
    return plan


def suite_entries(argument, tasks_with_expert, anchors_of=lambda task: []):
    """(task, [implementations]) for suite=TASK[/IMPL[+IMPL...]][,TASK...], or every task with
    an expert when there is no argument. A task named without implementations gets the
    reference, the baseline, the expert and every anchor (anchor:NAME) that anchors_of names,
    so that the anchors are timed in the same run as the expert."""
    entries = argument.split(",") if argument else list(tasks_with_expert)
    result = []
    for entry in entries:
        task, _, impls = entry.partition("/")
        if impls:
            result.append((task, impls.split("+")))
        else:
            result.append((task, ["reference", "baseline", "expert",
                                  *(f"anchor:{name}" for name in anchors_of(task))]))
    return result
