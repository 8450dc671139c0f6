#pragma once
// Runs an agent CLI to completion or to its wall-clock limit, with its output in log files.

#include <filesystem>
#include <string>

#include "agent/agent_launch.h"

namespace d2k::agent {

struct AgentExit {
  bool timed_out = false;  // the wall-clock limit was reached and the agent's group killed
  bool exited = false;     // exited rather than killed by a signal
  int status = -1;         // exit status when `exited`, else the signal number
  double seconds = 0.0;
};

// Starts `plan` in `cwd` (stdin empty, stdout and stderr to the two files) in a process group of
// its own. At `timeout_seconds` the group gets SIGTERM, and SIGKILL a few seconds later. Throws
// std::runtime_error when the program cannot be started.
AgentExit run_agent(const LaunchPlan& plan, const std::filesystem::path& cwd,
                    double timeout_seconds, const std::filesystem::path& stdout_file,
                    const std::filesystem::path& stderr_file);

}  // namespace d2k::agent
