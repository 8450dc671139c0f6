#include "eval/worker_session.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "util/text.h"

namespace d2k::eval {
namespace {

using Clock = std::chrono::steady_clock;

// How often a waiting orchestrator looks at its stop token.
constexpr double kStopPollSeconds = 0.25;
// How long a worker told to exit may take before it is killed.
constexpr size_t kLogTail = 8 * 1024;

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

WorkerSession::WorkerSession(std::string name, protocol::Setup setup, Start start,
                             std::chrono::seconds exit_grace)
    : name_(std::move(name)), setup_(std::move(setup)), start_(std::move(start)),
      exit_grace_(exit_grace) {}

WorkerSession::~WorkerSession() { close(); }

void WorkerSession::send(const nlohmann::json& message) { worker_->channel().send(message); }

std::string WorkerSession::log_tail(size_t limit) const {
  return worker_ ? worker_->log_tail(limit) : util::tail(last_log_, limit);
}

const sandbox::Report* WorkerSession::sandbox_report() const {
  return worker_ ? &worker_->sandbox_report() : nullptr;
}

void WorkerSession::start() {
  if (worker_) return;
  worker_ = start_();
  ready_ = false;
  worker_->channel().set_token(protocol::new_channel_token());
  worker_->channel().send(protocol::encode(setup_));
}

void WorkerSession::end_worker() {
  if (!worker_) return;
  worker_->kill();
  exit_status_ = worker_->wait();
  last_log_ = worker_->log_tail(kLogTail);
  worker_.reset();
}

void WorkerSession::close() {
  if (!worker_) return;
  const auto deadline = Clock::now() + exit_grace_;
  try {
    send(protocol::encode(protocol::Exit{}));
    nlohmann::json ignored;
    while (Clock::now() < deadline) {
      const auto status = worker_->channel().receive(ignored, std::chrono::milliseconds(250));
      if (status == protocol::Channel::Status::closed) break;
    }
  } catch (const std::exception&) {
    // A worker that cannot be told to exit is killed below all the same.
  }
  // The channel closes when the worker exits; the process it was started as (a profiler, say)
  // may still be finishing.
  worker_->wait_for(std::chrono::duration_cast<std::chrono::milliseconds>(
      std::max(deadline - Clock::now(), Clock::duration::zero())));
  end_worker();
}

Ending WorkerSession::run(const protocol::Workload& workload, const Limits& limits,
                          std::stop_token stop, const OnMessage& on_message,
                          std::string& detail) {
  start_seconds_ = 0.0;
  const auto started = Clock::now();
  start();
  try {
    send(protocol::encode(workload));
  } catch (const std::runtime_error&) {
    // A worker started early may already have ended (a candidate that fails to load): what it
    // sent before it did is still in the channel and says why.
  }
  double idle_limit = limits.idle_seconds;
  bool first_call_started = false;
  auto last_message = Clock::now();
  const auto end_with = [&](Ending ending) {
    if (ending != Ending::done) end_worker();
    return ending;
  };
  while (true) {
    if (stop.stop_requested()) {
      detail = "the evaluation was cancelled";
      return end_with(Ending::cancelled);
    }
    const auto now = Clock::now();
    const double left_overall = seconds_between(now, limits.deadline);
    const double left_idle = idle_limit - seconds_between(last_message, now);
    if (left_overall <= 0.0 || left_idle <= 0.0) {
      if (left_overall <= left_idle) {
        detail = "the workload exceeded its overall time limit";
        return end_with(Ending::workload_timed_out);
      }
      detail = fmt::format("no progress for {:.0f} s (call time limit)", idle_limit);
      return end_with(Ending::timed_out);
    }
    const double wait = std::min({left_idle, left_overall, kStopPollSeconds});
    nlohmann::json message;
    const auto status = worker_->channel().receive(
        message, std::chrono::milliseconds(static_cast<long long>(std::ceil(wait * 1000))));
    if (status == protocol::Channel::Status::timed_out) continue;
    if (status == protocol::Channel::Status::closed) return end_with(Ending::crashed);
    if (status == protocol::Channel::Status::rejected) {
      detail = message.value("reason", "");
      return end_with(Ending::rejected);
    }
    const std::string event = protocol::event_of(message);
    last_message = Clock::now();
    idle_limit = limits.idle_seconds;
    if (event == protocol::Ready::kEvent && !ready_) {
      ready_ = true;
      start_seconds_ = seconds_between(started, last_message);
    }
    if (event == protocol::Progress::kEvent && message.value("phase", "") == "timing") {
      idle_limit += 3.0 * message.value("expected_seconds", 0.0);
    }
    if (event == protocol::Progress::kEvent && message.value("phase", "") == "call" &&
        !first_call_started) {
      first_call_started = true;
      idle_limit += limits.first_call_extra_seconds;
    }
    try {
      on_message(message);
    } catch (const nlohmann::json::exception& error) {
      // Authenticated but not the message its event names: the worker is not speaking the
      // protocol, whatever made it so.
      detail = std::string("a malformed ") + event + " message: " + error.what();
      return end_with(Ending::rejected);
    }
    if (event == protocol::Done::kEvent) return Ending::done;
    if (event == protocol::Failure::kEvent) return end_with(Ending::failed);
  }
}

}  // namespace d2k::eval
