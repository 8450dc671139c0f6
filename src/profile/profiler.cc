#include "profile/profiler.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace d2k::profile {
namespace {

void check_workload(const task::Task& task, const ProfileRequest& request) {
  const auto& workloads = request.quick ? task.quick_workloads : task.workloads;
  std::vector<std::string> labels;
  for (const auto& workload : workloads) labels.push_back(workload.label);
  if (std::find(labels.begin(), labels.end(), request.workload) != labels.end()) return;
  throw ProfileError(fmt::format("task {} has no {}workload '{}' (known: {})", task.id,
                                 request.quick ? "quick " : "", request.workload,
                                 labels.empty() ? "none" : fmt::format("{}", fmt::join(labels, ", "))));
}

std::string install_hint(Tool tool) {
  return tool == Tool::ncu ? "install Nsight Compute (the CUDA toolkit's nsight-compute package)"
                           : "install the CUDA toolkit, which ships compute-sanitizer";
}

}  // namespace

ProfileOutcome run_profile(const task::Task& task, const ProfileRequest& request,
                           const ToolFinder& finder, ProfileRunner& runner) {
  if (task.evaluation.device != task::Device::cuda) {
    throw ProfileError("task " + task.id + " runs on the CPU; ncu and compute-sanitizer profile CUDA tasks");
  }
  check_workload(task, request);
  if (request.calls < 1) throw ProfileError("--calls must be at least 1");
  if (request.tool == Tool::sanitizer &&
      std::find(std::begin(kSanitizerChecks), std::end(kSanitizerChecks), request.check) ==
          std::end(kSanitizerChecks)) {
    throw ProfileError(fmt::format("unknown compute-sanitizer tool '{}' (known: {})", request.check,
                                   fmt::join(kSanitizerChecks, ", ")));
  }
  const std::string executable = tool_executable(request.tool);
  const auto found = finder.find(executable);
  if (!found) {
    std::vector<std::string> places;
    for (const auto& place : finder.places()) places.push_back(place.string());
    throw ProfileError(fmt::format("{} is not installed here: not found in {}; {}, or put {} on PATH",
                                   executable, fmt::join(places, ", "), install_hint(request.tool),
                                   executable));
  }
  std::error_code error;
  std::filesystem::create_directories(request.output_dir, error);
  if (error) {
    throw ProfileError("cannot create " + request.output_dir.string() + ": " + error.message());
  }
  ProfileOutcome outcome;
  outcome.command = tool_command(request.tool, *found, request.check,
                                 std::filesystem::absolute(request.output_dir), request.name);
  std::filesystem::remove(outcome.command.report, error);
  outcome.result = runner.run(outcome.command.launcher, request.calls);
  if (!std::filesystem::exists(outcome.command.report)) {
    outcome.missing_report = fmt::format("{} wrote no report {}; its messages are in {}", executable,
                                         outcome.command.report.string(),
                                         outcome.command.log.string());
  }
  return outcome;
}

}  // namespace d2k::profile
