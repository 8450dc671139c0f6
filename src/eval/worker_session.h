#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>

#include <nlohmann/json.hpp>

#include "eval/worker_process.h"
#include "protocol/messages.h"

namespace d2k::eval {

// How long a worker told to exit may take before it is killed.
inline constexpr std::chrono::seconds kExitGrace{10};

// How a workload's run on a worker ended.
enum class Ending { done, failed, crashed, timed_out, workload_timed_out, rejected, cancelled };

// Limits for one workload: how long the worker may go without reporting, and when it must be done.
struct Limits {
  double idle_seconds = 0.0;
  std::chrono::steady_clock::time_point deadline;
  // Added to the idle limit of the workload's first call, which compiles for the new shapes
  // (Triton's JIT, torch.compile) before it runs.
  double first_call_extra_seconds = 0.0;
};

// One worker process serving the workloads of one evaluation (docs/protocol.md, "Processes"):
// started when the first workload needs it, kept across workloads, and replaced by a fresh one
// after any workload that did not end with Done (a failure, a crash, a time limit) or that the
// evaluator judged failed (end_worker), so nothing a failed workload left behind reaches the next.
class WorkerSession {
 public:
  // Starts a worker process; the session sends it the Setup and a channel token.
  using Start = std::function<std::unique_ptr<WorkerProcess>()>;
  // Called with every message of a workload; may answer through send().
  using OnMessage = std::function<void(const nlohmann::json& message)>;

  // `exit_grace`: how long close() lets a worker end by itself (longer under a profiler, which
  // writes its report once the worker has exited).
  WorkerSession(std::string name, protocol::Setup setup, Start start,
                std::chrono::seconds exit_grace = kExitGrace);
  ~WorkerSession();
  WorkerSession(const WorkerSession&) = delete;  // owns a process
  WorkerSession& operator=(const WorkerSession&) = delete;

  // Sends `workload` and hands every message to `on_message` until the worker reports Done or a
  // Failure, dies, stalls or runs past `limits`, or `stop` is requested. A progress message of
  // the timing phase raises the idle limit by three times the time it expects. `detail` says
  // what happened when the ending is not done or failed.
  Ending run(const protocol::Workload& workload, const Limits& limits, std::stop_token stop,
             const OnMessage& on_message, std::string& detail);
  // Starts the worker now (when none is running), so that it loads while something else runs;
  // run() starts it otherwise.
  void start();
  void send(const nlohmann::json& message);

  // Seconds the last run waited for its worker to start (0 when one was already ready).
  double start_seconds() const { return start_seconds_; }
  // The last worker's exit, after a run that did not end with done or failed.
  const ExitStatus& exit_status() const { return exit_status_; }
  std::string log_tail(size_t limit) const;
  // The sandbox's report for the running worker (empty when none has started).
  const sandbox::Report* sandbox_report() const;
  // Asks a running worker to exit and reaps it.
  void close();
  // Kills the running worker and reaps it; the next run starts a fresh one.
  void end_worker();

 private:

  std::string name_;
  protocol::Setup setup_;
  Start start_;
  std::chrono::seconds exit_grace_;
  std::unique_ptr<WorkerProcess> worker_;
  bool ready_ = false;  // the running worker has announced itself
  double start_seconds_ = 0.0;
  ExitStatus exit_status_;
  std::string last_log_;
};

}  // namespace d2k::eval
