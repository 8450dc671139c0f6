#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace d2k::eval {

// Newline-delimited JSON over a private socket between the orchestrator and a worker. Results
// never travel over stdout, where a candidate can print whatever it likes.
class Channel {
 public:
  enum class Status { message, timed_out, closed };

  explicit Channel(int fd) : fd_(fd) {}
  ~Channel();
  Channel(const Channel&) = delete;  // owns the descriptor
  Channel& operator=(const Channel&) = delete;

  int fd() const { return fd_; }
  void send(const nlohmann::json& message);
  // Waits up to `timeout` for one complete message.
  Status receive(nlohmann::json& message, std::chrono::milliseconds timeout);

 private:
  int fd_;
  std::string buffer_;
};

}  // namespace d2k::eval
