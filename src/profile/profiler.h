#pragma once
// `d2k profile` (docs/profiling.md): one workload of one implementation under Nsight Compute or
// compute-sanitizer, through the evaluator's own loading code.

#include <filesystem>
#include <stdexcept>
#include <string>

#include "profile/profile_runner.h"
#include "profile/profile_tool.h"
#include "profile/tool_finder.h"
#include "record/result.h"
#include "task/task.h"

namespace d2k::profile {

// What the user asked for; the implementation itself is the runner's business.
struct ProfileRequest {
  std::string workload;       // a label of the task's workloads, or of its quick_workloads
  bool quick = false;         // look the label up in quick_workloads
  Tool tool = Tool::ncu;
  std::string check = "memcheck";   // compute-sanitizer's tool
  std::filesystem::path output_dir;
  std::string name;           // the report's file name, without its extension
  int calls = 3;              // profiled calls after the warm-up call
};

struct ProfileOutcome {
  ToolCommand command;
  record::EvaluationResult result;  // the trials' verdicts
  // Empty when the tool wrote its report; else what went wrong and where the tool's messages are
  // (a call that raises stops the worker before the profiled calls, too).
  std::string missing_report;
};

// A request that cannot run (an unknown workload, a CPU task, no tool); what() says what to do.
class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks the request against `task`, finds the tool, creates the output folder, and runs the
// workload under the tool's command. Throws ProfileError when it cannot run.
ProfileOutcome run_profile(const task::Task& task, const ProfileRequest& request,
                           const ToolFinder& finder, ProfileRunner& runner);

}  // namespace d2k::profile
