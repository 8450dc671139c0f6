#pragma once
// The `bash` tool's commands under the candidates' sandbox (docs/protocol.md, "Sandbox"): the
// workspace is the only writable folder, the task's hidden files and the store are masked, and
// the network is an empty namespace, so a shell cannot read what a submission may not.

#include <cstddef>
#include <filesystem>
#include <string>

#include "agent/command_runner.h"
#include "sandbox/policy.h"

namespace d2k::agent {

class SandboxedCommandRunner : public CommandRunner {
 public:
  explicit SandboxedCommandRunner(sandbox::Policy policy) : policy_(std::move(policy)) {}

  native::CommandResult run(const std::string& command, const std::filesystem::path& cwd,
                            double timeout_seconds, size_t output_limit,
                            std::stop_token stop) override;

  // What the commands of an agent working on the task in `task_dir` must not see: the suite
  // folder holding the task (the task's public files are staged in the workspace; no task's
  // expert, judge criteria or reference is), or only the task's folder when the workspace lies
  // inside the suite folder; and the store with its journal files.
  static sandbox::Policy agent_policy(const std::filesystem::path& task_dir,
                                      const std::filesystem::path& workspace,
                                      const std::filesystem::path& store_path);

 private:
  sandbox::Policy policy_;
  bool reported_ = false;  // protections the kernel refused are said once, on stderr
};

}  // namespace d2k::agent
