#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "protocol/channel.h"
#include "sandbox/policy.h"
#include "sandbox/report.h"
#include "sandbox/sandbox.h"

namespace d2k::eval {

struct ExitStatus {
  bool exited = false;
  int code = 0;
  bool signaled = false;
  int signal = 0;

  std::string describe() const;
};

// A `d2k worker` child in its own process group and session, with stdout and stderr going to a
// log file (the first kLogLimit bytes of them) and results coming back over a private socket pair.
class WorkerProcess {
 public:
  // What a worker's log keeps: a candidate that prints without end fills no disk.
  static constexpr size_t kLogLimit = size_t{1} << 20;

  // With a `policy`, the worker runs inside the sandbox (sandbox/sandbox.h) with `environment`
  // added to its variables; without one, as a plain child. A `launcher` (a profiler's command
  // line) runs the worker's command as its own arguments; the channel stays open across it.
  static std::unique_ptr<WorkerProcess> start(
      const std::filesystem::path& binary, const std::filesystem::path& log_file,
      const sandbox::Policy* policy = nullptr,
      const std::vector<std::pair<std::string, std::string>>& environment = {},
      const std::vector<std::string>& launcher = {});
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;  // owns a child process
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  protocol::Channel& channel() { return *channel_; }
  // Kills the whole process group (the candidate may have started children); nothing once the
  // process has been reaped.
  void kill();
  ExitStatus wait();
  // Waits up to `timeout` for the process to end by itself (a profiler that wraps the worker
  // writes its report after the worker has exited); true when it did, and wait() then returns
  // at once.
  bool wait_for(std::chrono::milliseconds timeout);
  std::string log_tail(size_t limit) const;
  // Which protections took effect; `enabled` is false for a worker started without a policy.
  const sandbox::Report& sandbox_report() const { return sandbox_report_; }

 private:
  WorkerProcess(pid_t pid, int fd, std::filesystem::path log_file);
  void copy_log(int from, int to);
  void stop_log();
  ExitStatus reaped(int raw);

  pid_t pid_;
  std::unique_ptr<protocol::Channel> channel_;
  std::filesystem::path log_file_;
  bool reaped_ = false;
  ExitStatus status_;  // once reaped
  sandbox::Report sandbox_report_;
  std::shared_ptr<sandbox::Cgroup> cgroup_;  // released after the worker is reaped
  std::thread log_copier_;                    // the worker's output into the log, up to the limit
  std::atomic<bool> log_closing_{false};
};

// The running d2k executable, which workers re-execute.
std::filesystem::path current_executable();

}  // namespace d2k::eval
