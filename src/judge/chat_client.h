#pragma once
// An OpenAI-compatible chat-completions client for the judge: JSON output through
// `response_format` (a strict JSON schema, falling back to JSON mode, then to none, when the
// server rejects it), bounded retries with exponential back-off on 429, 5xx and failed
// connections (Retry-After honored, capped), and token usage.

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/judge_request.h"
#include "judge/transport.h"
#include "record/judge_assessment.h"

namespace d2k::judge {

enum class ResponseFormat { json_schema, json_object, none };

std::string to_string(ResponseFormat format);

struct ClientOptions {
  std::string model;
  int max_retries = 3;                        // retries after the first request, per completion
  double initial_backoff_s = 2.0;             // doubles with each retry
  double max_backoff_s = 60.0;                // caps the back-off and a server's Retry-After
  std::function<void(double seconds)> sleep;  // empty: the calling thread sleeps
};

// The endpoint failed: a status that is not retried, retries exhausted, or a reply without
// usable content. Carries the tokens the endpoint reported anyway.
class JudgeError : public std::runtime_error {
 public:
  JudgeError(const std::string& what, record::TokenUsage usage = {})
      : std::runtime_error(what), usage_(usage) {}
  const record::TokenUsage& usage() const { return usage_; }

 private:
  record::TokenUsage usage_;
};

struct Completion {
  std::string content;  // choices[0].message.content
  record::TokenUsage usage;
};

class ChatClient {
 public:
  ChatClient(Transport& transport, ClientOptions options);

  // One completion of `messages`; the reply must follow `kind`'s response schema. Throws
  // JudgeError.
  Completion complete(const std::vector<ChatMessage>& messages, record::JudgeKind kind);

  // The format requests use now: json_schema until the server has rejected it.
  ResponseFormat format() const { return format_; }

  // The request body as it is sent (and as `d2k judge --dry-run` writes it).
  static nlohmann::json request_body(const std::string& model,
                                     const std::vector<ChatMessage>& messages,
                                     record::JudgeKind kind, ResponseFormat format);

 private:
  double retry_delay(const HttpResponse& response, int retry) const;

  Transport& transport_;
  ClientOptions options_;
  ResponseFormat format_ = ResponseFormat::json_schema;
};

}  // namespace d2k::judge
