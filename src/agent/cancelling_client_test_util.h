#pragma once
// An MCP client that cancels its tool call after a delay, from a thread of its own (for the
// agent layer's cancellation tests).

#include <chrono>
#include <stop_token>
#include <thread>

namespace d2k::agent {

class CancellingClient {
 public:
  explicit CancellingClient(std::chrono::milliseconds delay)
      : thread_([this, delay] {
          std::this_thread::sleep_for(delay);
          source_.request_stop();
        }) {}
  CancellingClient(const CancellingClient&) = delete;  // its thread refers to it
  CancellingClient& operator=(const CancellingClient&) = delete;

  // What the tool call is given: requested once the delay has passed.
  std::stop_token token() const { return source_.get_token(); }

 private:
  std::stop_source source_;  // before thread_, which uses it
  std::jthread thread_;
};

}  // namespace d2k::agent
