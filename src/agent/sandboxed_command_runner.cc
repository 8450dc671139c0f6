#include "agent/sandboxed_command_runner.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "sandbox/sandbox.h"
#include "sandbox/system_view.h"

namespace d2k::agent {

native::CommandResult SandboxedCommandRunner::run(const std::string& command,
                                                  const std::filesystem::path& cwd,
                                                  double timeout_seconds, size_t output_limit,
                                                  std::stop_token stop) {
  const auto started = std::chrono::steady_clock::now();
  // run_sandboxed starts /bin/sh; the tool promises bash.
  const sandbox::RunResult ran = sandbox::run_sandboxed("exec bash -c " + native::shell_quote({command}), cwd,
                                                        policy_, timeout_seconds, output_limit, stop);
  if (!reported_ && !ran.report.unavailable.empty()) {
    std::fprintf(stderr, "d2k mcp: bash sandbox: %s\n", ran.report.summary().c_str());
    reported_ = true;
  }
  native::CommandResult result;
  result.timed_out = ran.timed_out;
  result.cancelled = ran.cancelled;
  result.exited = ran.exited;
  result.status = ran.status;
  result.output = ran.output;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

sandbox::Policy SandboxedCommandRunner::agent_policy(const std::filesystem::path& task_dir,
                                                     const std::filesystem::path& workspace,
                                                     const std::filesystem::path& store_path) {
  namespace fs = std::filesystem;
  const fs::path task = fs::weakly_canonical(fs::absolute(task_dir));
  const fs::path suite = task.parent_path();
  const fs::path inside = fs::weakly_canonical(fs::absolute(workspace)).lexically_relative(suite);
  const bool workspace_in_suite = !inside.empty() && *inside.begin() != "..";
  sandbox::Policy policy;
  policy.hidden.push_back(workspace_in_suite || suite == suite.root_path() ? task : suite);
  if (!store_path.empty()) policy.hide_database(store_path);
  policy.hide_repositories(task);
  policy.hide_repositories(workspace);
  policy.minimal_root = sandbox::minimal_root_from(sandbox::host_facts());
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  policy.limits.cpu_seconds = static_cast<rlim_t>(3600 * cores);
  policy.limits.file_bytes = rlim_t{16} << 30;
  policy.limits.processes = 4096;  // threads count: compilers and Python start many
  return policy;
}

}  // namespace d2k::agent
