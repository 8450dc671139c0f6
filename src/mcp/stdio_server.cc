#include "mcp/stdio_server.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "mcp/protocol_version.h"
#include "mcp/rpc_error.h"
#include "util/bounded_json.h"

namespace d2k::mcp {
namespace {

using nlohmann::json;

struct QueuedCall {
  json message;
  std::string key;  // the request id as text, for cancellation
  std::stop_source stop;
};

// The state the reader and the worker share.
class CallQueue {
 public:
  void push(QueuedCall call) {
    std::lock_guard lock(mutex_);
    calls_.push_back(std::move(call));
    changed_.notify_one();
  }

  // The next call, or nullopt once closed and drained.
  std::optional<QueuedCall> pop() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return closed_ || !calls_.empty(); });
    if (calls_.empty()) return std::nullopt;
    QueuedCall call = std::move(calls_.front());
    calls_.pop_front();
    running_ = call.key;
    running_stop_ = call.stop;
    return call;
  }

  void finished() {
    std::lock_guard lock(mutex_);
    running_.reset();
  }

  // Stops the call with this id, waiting or running; true when one was found.
  bool cancel(const std::string& key) {
    std::lock_guard lock(mutex_);
    if (running_ == key) {
      running_stop_.request_stop();
      return true;
    }
    for (auto& call : calls_) {
      if (call.key == key) call.stop.request_stop();
    }
    return false;
  }

  // No more calls; pop() drains the waiting ones, then ends.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<QueuedCall> calls_;
  std::optional<std::string> running_;
  std::stop_source running_stop_;
  bool closed_ = false;
};

struct InputLine {
  std::string text;       // without the newline and a trailing carriage return
  bool too_long = false;  // more than the limit arrived; the rest was read and dropped
};

// The next line of `in`, keeping at most `limit` bytes of it; nullopt at the end of input.
std::optional<InputLine> read_line(std::istream& in, size_t limit) {
  std::streambuf& buffer = *in.rdbuf();
  InputLine line;
  int c = buffer.sbumpc();
  if (c == std::char_traits<char>::eof()) return std::nullopt;
  for (; c != std::char_traits<char>::eof() && c != '\n'; c = buffer.sbumpc()) {
    if (line.text.size() < limit) {
      line.text.push_back(static_cast<char>(c));
    } else {
      line.too_long = true;
    }
  }
  if (!line.text.empty() && line.text.back() == '\r') line.text.pop_back();
  return line;
}

}  // namespace

std::string frame(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

void StdioServer::run() {
  std::mutex write_mutex;
  auto write = [&](const json& message) {
    std::lock_guard lock(write_mutex);
    out_ << frame(message) << '\n';
    out_.flush();
  };
  CallQueue queue;
  // Calls, and batches (which may contain calls), run here one at a time.
  std::thread worker([&] {
    while (auto call = queue.pop()) {
      if (call->stop.stop_requested()) {  // cancelled while it waited: never started
        queue.finished();
        continue;
      }
      std::optional<json> reply;
      if (call->message.is_array()) {
        json replies = json::array();
        for (const auto& element : call->message) {
          if (auto one = dispatcher_.handle(element, call->stop.get_token())) replies.push_back(*one);
        }
        if (!replies.empty()) reply = replies;
      } else {
        reply = dispatcher_.handle(call->message, call->stop.get_token());
      }
      queue.finished();
      // A cancelled request gets no response (the client has stopped waiting for it).
      if (reply && !call->stop.stop_requested()) write(*reply);
    }
  });

  while (const auto line = read_line(in_, limits_.max_bytes)) {
    if (line->too_long) {
      write(error_response(nullptr, kParseError,
                           fmt::format("Parse error: a message longer than {} bytes", limits_.max_bytes)));
      continue;
    }
    if (line->text.find_first_not_of(" \t") == std::string::npos) continue;
    json message;
    try {
      message = util::parse_bounded_json(line->text, limits_);
    } catch (const util::JsonInputError& error) {
      write(error_response(nullptr, kParseError, std::string("Parse error: ") + error.what()));
      continue;
    }
    if (message.is_array()) {
      if (dispatcher_.negotiated_version() != kBatchingVersion || message.empty()) {
        write(error_response(nullptr, kInvalidRequest,
                             "batches are accepted only under protocol version 2025-03-26"));
      } else {
        queue.push({std::move(message), "", {}});
      }
      continue;
    }
    const bool is_object = message.is_object();
    const std::string method =
        is_object && message.contains("method") && message["method"].is_string() ? message["method"].get<std::string>() : "";
    if (method == "notifications/cancelled") {
      const json params = message.value("params", json::object());
      if (params.is_object() && params.contains("requestId")) queue.cancel(params["requestId"].dump());
      continue;
    }
    if (method == "tools/call" && message.contains("id")) {
      queue.push({message, message["id"].dump(), {}});
      continue;
    }
    if (auto reply = dispatcher_.handle(message)) write(*reply);
  }
  queue.close();
  worker.join();
}

}  // namespace d2k::mcp
