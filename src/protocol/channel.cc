#include "protocol/channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "util/bounded_json.h"

namespace d2k::protocol {
namespace {

// Worker messages are small (tensors travel as files); a longer line is an attack or a bug.
constexpr size_t kMaxLineBytes = 4 << 20;

}  // namespace

Channel::~Channel() {
  if (fd_ >= 0) close(fd_);
}

std::string new_channel_token() {
  std::random_device device;
  std::string token;
  for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", device());
  return token;
}

void Channel::send(nlohmann::json message) {
  if (!token_.empty()) message["token"] = token_;
  const std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = ::send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("channel send failed: ") + std::strerror(errno));
    }
    sent += static_cast<size_t>(n);
  }
}

Channel::Status Channel::receive(nlohmann::json& message, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      const std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      message = util::parse_bounded_json_or_discarded(line, {.max_bytes = kMaxLineBytes});
      if (message.is_discarded() || !message.is_object()) {
        message = {{"reason", "a line on the result channel is not a JSON object"}};
        return Status::rejected;
      }
      const auto token = message.find("token");
      if (!token_.empty() && (token == message.end() || !token->is_string() ||
                              token->get_ref<const std::string&>() != token_)) {
        message = {{"reason", "a message on the result channel lacks the job's token (forged)"}};
        return Status::rejected;
      }
      return Status::message;
    }
    if (buffer_.size() > kMaxLineBytes) {
      message = {{"reason", "the result channel carried a line longer than any message"}};
      return Status::rejected;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    // A peer that keeps sending bytes without a newline must not outlive the deadline.
    if (left.count() <= 0 && timeout.count() > 0) return Status::timed_out;
    pollfd waiting{fd_, POLLIN, 0};
    const int ready = poll(&waiting, 1, static_cast<int>(std::max<long long>(0, left.count())));
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("channel poll failed: ") + std::strerror(errno));
    }
    if (ready == 0) return Status::timed_out;
    char chunk[65536];
    const ssize_t n = read(fd_, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::closed;
    }
    if (n == 0) return Status::closed;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace d2k::protocol
