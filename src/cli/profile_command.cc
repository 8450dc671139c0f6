#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "eval/evaluator.h"
#include "profile/evaluator_profile_runner.h"
#include "profile/profiler.h"
#include "runtime/cuda_driver.h"

namespace d2k::cli {
namespace {

struct ProfileFlags {
  std::string task;
  std::string solution;
  std::string impl;
  std::string workload;
  std::string tool = "ncu";
  std::string check = "memcheck";
  std::string output = "d2k-profile";
  int calls = 3;
  bool quick = false;
};

// How to look at what the tool wrote.
std::string how_to_read(profile::Tool tool, const std::filesystem::path& report) {
  if (tool == profile::Tool::ncu) {
    return fmt::format("open it in Nsight Compute (ncu-ui {}) or print it: ncu --import {} --page details",
                       report.string(), report.string());
  }
  return "compute-sanitizer's findings, ending with its ERROR SUMMARY";
}

}  // namespace

std::function<int()> define_profile(CLI::App& app, const GlobalOptions& global) {
  app.footer(
      "Loads the implementation as `d2k eval` does, runs the workload's correctness trials, then "
      "a warm-up call and --calls calls in NVTX ranges between cuProfilerStart and "
      "cuProfilerStop, with the candidate worker under the tool (docs/profiling.md). Nothing is "
      "timed or stored. Exit status: 0 when the tool wrote its report and the trials passed, 1 "
      "when they failed, 2 on a usage or set-up error.");
  auto flags = std::make_shared<ProfileFlags>();
  app.add_option("task", flags->task, "task id or folder")->required();
  auto* solution = app.add_option("--solution", flags->solution, "candidate file: .py, .cu or .cpp")
                       ->check(CLI::ExistingFile);
  app.add_option("--impl", flags->impl, "a task implementation instead of a file")
      ->check(CLI::IsMember({"reference", "baseline", "expert"}))
      ->excludes(solution);
  app.add_option("--workload", flags->workload, "the workload label")->required();
  app.add_flag("--quick", flags->quick, "the label is one of the task's quick_workloads");
  app.add_option("--tool", flags->tool, "ncu (Nsight Compute, the default) or sanitizer (compute-sanitizer)")
      ->check(CLI::IsMember({"ncu", "sanitizer"}));
  app.add_option("--check", flags->check,
                 "compute-sanitizer's tool: memcheck (default), racecheck, initcheck or synccheck");
  app.add_option("--calls", flags->calls, "profiled calls after the warm-up call (default 3)");
  app.add_option("--output", flags->output, "folder for the report (default ./d2k-profile)");
  return [flags, &global] {
    if (flags->solution.empty() && flags->impl.empty()) {
      throw std::runtime_error("give --solution FILE or --impl reference|baseline|expert");
    }
    const task::Task task = resolve_task(global, flags->task);
    if (!flags->solution.empty()) eval::candidate_language(task, flags->solution);
    profile::ProfileRequest request;
    request.workload = flags->workload;
    request.quick = flags->quick;
    request.tool = profile::parse_tool(flags->tool);
    request.check = flags->check;
    request.output_dir = flags->output;
    request.calls = flags->calls;
    const std::string implementation =
        flags->solution.empty() ? flags->impl : std::filesystem::path(flags->solution).stem().string();
    request.name = fmt::format("{}-{}-{}", task.id, flags->workload, implementation);

    eval::EvaluatorOptions options;
    options.kind = flags->solution.empty() ? *task::parse_impl_kind(flags->impl) : task::ImplKind::solution;
    options.solution = flags->solution;
    options.workload = flags->workload;
    options.quick = flags->quick;
    options.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    profile::EvaluatorProfileRunner runner(task, options);
    profile::SystemToolFinder finder;
    try {
      if (task.evaluation.device == task::Device::cuda) {
        const auto availability = runtime::probe_cuda_device();
        if (!availability.available) {
          throw profile::ProfileError("task " + task.id + " needs a CUDA GPU, and none is usable here: " +
                                      availability.reason);
        }
      }
      const auto outcome = profile::run_profile(task, request, finder, runner);
      const bool passed = outcome.result.passed();
      for (const auto& workload : outcome.result.workloads) {
        fmt::print("{}: {}{}\n", workload.workload, record::to_string(workload.verdict),
                   workload.reason_code.empty() ? "" : " (" + workload.reason_code + ")");
        if (workload.verdict != record::Verdict::passed && !workload.message.empty()) {
          fmt::print("  {}\n", workload.message);
        }
      }
      if (!outcome.missing_report.empty()) {
        std::fprintf(stderr, "d2k profile: %s\n", outcome.missing_report.c_str());
        return kExitUsage;
      }
      fmt::print("report: {}\n  {}\n", outcome.command.report.string(),
                 how_to_read(request.tool, outcome.command.report));
      return passed ? kExitPassed : kExitFailed;
    } catch (const profile::ProfileError& error) {
      std::fprintf(stderr, "d2k profile: %s\n", error.what());
      return kExitUsage;
    }
  };
}

}  // namespace d2k::cli
