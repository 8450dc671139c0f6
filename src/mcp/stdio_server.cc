#include "mcp/stdio_server.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "mcp/protocol_version.h"
#include "mcp/rpc_error.h"

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

  std::string line;
  while (std::getline(in_, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    json message;
    try {
      message = json::parse(line);
    } catch (const json::parse_error& error) {
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
