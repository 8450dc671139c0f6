#include "agent/instructions.h"

#include <fmt/format.h>

#include "util/python_executable.h"

namespace d2k::agent {
namespace {

std::string accepted_files(const task::Task& task) {
  std::string text;
  for (const task::Language language : task.evaluation.languages) {
    if (!text.empty()) text += ", ";
    switch (language) {
      case task::Language::python: text += "`solution.py` (Python; Triton kernels are allowed)"; break;
      case task::Language::cuda: text += "`solution.cu` (CUDA C++ against the C ABI in `d2k/native_abi.h`)"; break;
      case task::Language::cpp: text += "`solution.cpp` (C++ against the C ABI in `d2k/native_abi.h`)"; break;
    }
  }
  return text;
}

std::string guidance_lines(GuidanceConfig config) {
  switch (guidance_levels(config)) {
    case 1:
      return "- `guidance.json`: expert design guidance, level 1 only (the high-level algorithmic "
             "insight). Use it as a starting point; it is not a specification.\n";
    case 2:
      return "- `guidance.json`: expert design guidance, levels 1 (algorithmic insight) and 2 "
             "(dataflow design: which values exist, where they live, for how long).\n";
    case 3:
      return "- `guidance.json`: expert design guidance at all three levels (algorithmic insight, "
             "dataflow design, low-level optimization tricks) and the rationale linking them.\n";
    default: return "";
  }
}

}  // namespace

std::string agent_instructions(const task::Task& task, GuidanceConfig config, int turn_budget) {
  if (config == GuidanceConfig::design) {
    return fmt::format(
        "# Design run: {title}\n\n"
        "This run asks for a written design, not code. There is no GPU and nothing can be "
        "measured. Do not write or run kernels.\n\n"
        "1. Read `DESIGN_BRIEF.md`, then every other file here: `task_description.md`, "
        "`reference.py`, `get_inputs.py`, `config.json`, `implementation_requirements.yaml` and "
        "`design_schema.json`.\n"
        "2. Call the `submit_design` tool with the complete design as the `content` argument: one "
        "JSON document that validates against `design_schema.json`. The tool lists every "
        "violation; fix them and call it again. The last valid design is the one graded.\n\n"
        "Tools: `read` (files here) and `submit_design`. You have {budget} turns; a turn is one "
        "response of yours with the tool calls it makes. A text answer alone is not graded.\n",
        fmt::arg("title", task.title), fmt::arg("budget", turn_budget));
  }
  return fmt::format(
      "# Optimize: {title}\n\n"
      "Make the operator described in `task_description.md` as fast as possible on the target "
      "{device}, while staying correct and keeping its implementation rules.\n\n"
      "## Files\n\n"
      "- `task_description.md`: what the operator computes, its shapes and dtypes.\n"
      "- `reference.py`: a correct PyTorch implementation; outputs are compared with it.\n"
      "- `get_inputs.py` and `config.json`: how each registered workload's inputs are built.\n"
      "- `implementation_requirements.yaml`: rules a solution must keep; breaking one makes it "
      "invalid even when its outputs are right.\n"
      "- `solution.py`: the template. Implement `run(...)` with the signature it shows.\n"
      "{guidance}"
      "\nThis task accepts {accepted}.\n\n"
      "## Tools\n\n"
      "- `read` and `write`: files in this workspace (paths are relative to it).\n"
      "- `bash`: a shell command in this workspace, with a time limit and no network (compile, "
      "test, profile). `python3` there is `{python}`, the interpreter submissions are evaluated "
      "with.\n"
      "- `submit`: evaluates one solution file (default `solution.py`) with the full protocol: "
      "correctness trials against the reference on every workload, the implementation rules, "
      "then timing. It answers, per workload, the verdict, the latency and the speedup over the "
      "baseline implementation, and lists any rule violations. Only the submitted file is "
      "evaluated, on its own: a solution cannot import other files of this workspace, so keep "
      "it in one self-contained file.\n\n"
      "## What counts\n\n"
      "A submission is eligible when it is correct and valid on every workload and has a valid "
      "latency on each. Your final submission is the eligible one with the highest geometric-mean "
      "speedup over the baseline, so submit whenever you have something better; a later, worse "
      "submission does not replace it.\n\n"
      "You have {budget} turns. A turn is one response of yours with the tool calls it makes; "
      "once the budget is spent the tools stop answering.\n",
      fmt::arg("title", task.title),
      fmt::arg("device", task.evaluation.device == task::Device::cuda ? "GPU" : "CPU"),
      fmt::arg("guidance", guidance_lines(config)), fmt::arg("accepted", accepted_files(task)),
      fmt::arg("python", util::python_executable().string()), fmt::arg("budget", turn_budget));
}

std::string design_brief(const task::Task& task) {
  return fmt::format(
      "# Design brief: {title}\n\n"
      "Write the design of a fast implementation of this operator, as `model_design.json`, "
      "valid against `design_schema.json`. Only that document is graded. You cannot consult a "
      "reference design and cannot measure anything.\n\n"
      "## Be specific to this operator\n\n"
      "A design that would fit any kernel says nothing. Each claim should follow from this "
      "operator's registered shapes, dtypes and value ranges, and would be false for a "
      "different operator. Name costs in bytes moved, operations done or launches issued, at "
      "the registered workloads.\n\n"
      "## What each part of the schema asks\n\n"
      "- `level_1_high_level_algorithmic_insights`: how the mathematics or the order of work "
      "changes, why the result is still correct, and which dominant cost disappears.\n"
      "- `level_2_dataflow_design`: the stages and the edges between them: which values exist, "
      "their layout, who owns them and where they reside, who consumes them and when they die; "
      "what must never be materialized, and what an implementation must show to count as "
      "adopting the design.\n"
      "- `level_3_low_level_optimization_tricks`: the execution mechanisms (pipelining, "
      "specialized warps, synchronization, special instructions) that keep the benefit of the "
      "levels above, each with the challenge it answers, the strategy, the pitfall and what "
      "stays open for tuning.\n"
      "- `cross_level_rationale`: chains from one real bottleneck at these shapes, through the "
      "three levels, to the cost that no longer exists (named, not \"overhead\"), with the "
      "conditions under which the chain holds.\n\n"
      "## Handing it in\n\n"
      "Call `submit_design` with the whole document as `content`. It reports every schema "
      "violation with its location; correct them and submit again.\n",
      fmt::arg("title", task.title));
}

std::string start_prompt(GuidanceConfig config) {
  if (config == GuidanceConfig::design) {
    return "Read INSTRUCTIONS.md and DESIGN_BRIEF.md in the workspace with the d2k read tool, then "
           "follow them. Hand in your design with the d2k submit_design tool.";
  }
  return "Read INSTRUCTIONS.md in the workspace with the d2k read tool, then follow it. Use the d2k "
         "tools (read, write, bash, submit); your submissions are what is graded.";
}

}  // namespace d2k::agent
