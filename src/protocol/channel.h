#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace d2k::protocol {

// Newline-delimited JSON over a private socket between the orchestrator and a worker. Results
// never travel over stdout, where a candidate can print whatever it likes.
//
// Both ends stamp every message with a per-job secret token that exists only in C++ memory (the
// orchestrator draws it, the job carries it); a line without it, or one that is not JSON, is
// rejected. A candidate that writes to the descriptor from Python cannot forge results; one that
// reads its own process memory (ctypes, /proc/self/mem) could find the token, which the
// sandbox of the integrity work has to close.
class Channel {
 public:
  enum class Status { message, timed_out, closed, rejected };

  explicit Channel(int fd) : fd_(fd) {}
  ~Channel();
  Channel(const Channel&) = delete;  // owns the descriptor
  Channel& operator=(const Channel&) = delete;

  int fd() const { return fd_; }
  void set_token(std::string token) { token_ = std::move(token); }
  void send(nlohmann::json message);
  // Waits up to `timeout` for one complete message. `rejected` leaves the reason in `message`
  // as {"reason": ...}.
  Status receive(nlohmann::json& message, std::chrono::milliseconds timeout);

 private:
  int fd_;
  std::string token_;
  std::string buffer_;
};

// 128 random bits as hex, for Channel::set_token.
std::string new_channel_token();

}  // namespace d2k::protocol
