#include "judge/chat_client.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <optional>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "judge/response_schema.h"
#include "util/bounded_json.h"
#include "util/text.h"

namespace d2k::judge {
namespace {

using nlohmann::json;

constexpr size_t kErrorBodyBytes = 400;

bool is_retryable(const HttpResponse& response) {
  return response.status == 0 || response.status == 429 ||
         (response.status >= 500 && response.status <= 599);
}

// A 400 that names the response format: the server does not support what was asked for.
bool rejects_response_format(const HttpResponse& response) {
  if (response.status != 400) return false;
  std::string body = response.body;
  std::transform(body.begin(), body.end(), body.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return body.find("response_format") != std::string::npos ||
         body.find("json_schema") != std::string::npos;
}

// Retry-After in seconds ("7", "1.5"); the HTTP-date form is not used by chat endpoints and
// falls back to the back-off.
std::optional<double> parse_retry_after(const std::string& text) {
  double seconds = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(seconds) || seconds < 0.0) {
    return std::nullopt;
  }
  return seconds;
}

// The error message of an OpenAI-style error body, else the body itself, bounded.
std::string describe(const HttpResponse& response) {
  if (response.status == 0) return "no response (" + response.error + ")";
  const json body = util::parse_bounded_json_or_discarded(response.body);
  if (!body.is_discarded() && body.is_object() && body.contains("error")) {
    const json& error = body["error"];
    if (error.is_object() && error.contains("message") && error["message"].is_string()) {
      return fmt::format("HTTP {}: {}", response.status,
                         util::bounded(error["message"].get<std::string>(), kErrorBodyBytes));
    }
  }
  return fmt::format("HTTP {}: {}", response.status, util::bounded(response.body, kErrorBodyBytes));
}

int64_t count(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

record::TokenUsage read_usage(const json& body) {
  record::TokenUsage usage;
  const auto it = body.find("usage");
  if (it == body.end() || !it->is_object()) return usage;
  usage.prompt_tokens = count(*it, "prompt_tokens");
  usage.completion_tokens = count(*it, "completion_tokens");
  usage.total_tokens = count(*it, "total_tokens");
  const auto details = it->find("prompt_tokens_details");
  if (details != it->end() && details->is_object()) {
    usage.cached_tokens = count(*details, "cached_tokens");
  }
  return usage;
}

Completion read_completion(const std::string& text) {
  const json body = util::parse_bounded_json_or_discarded(text);
  if (body.is_discarded() || !body.is_object()) {
    throw JudgeError("the endpoint answered 200 with a body that is not a JSON object: " +
                     util::bounded(text, kErrorBodyBytes));
  }
  Completion completion;
  completion.usage = read_usage(body);
  const auto fail = [&](const std::string& why) { return JudgeError(why, completion.usage); };
  const auto choices = body.find("choices");
  if (choices == body.end() || !choices->is_array() || choices->empty() ||
      !(*choices)[0].is_object()) {
    throw fail("the reply has no choices[0]");
  }
  const json& choice = (*choices)[0];
  const auto finish_reason = choice.find("finish_reason");
  const std::string finish = finish_reason != choice.end() && finish_reason->is_string()
                                 ? finish_reason->get<std::string>()
                                 : "";
  if (finish == "length") throw fail("the reply was cut off at the token limit");
  if (finish == "content_filter") throw fail("the provider's content filter stopped the reply");
  const auto message = choice.find("message");
  if (message == choice.end() || !message->is_object()) throw fail("choices[0] has no message");
  const auto refusal = message->find("refusal");
  if (refusal != message->end() && refusal->is_string()) {
    throw fail("the model refused: " + util::bounded(refusal->get<std::string>(), kErrorBodyBytes));
  }
  const auto content = message->find("content");
  if (content == message->end() || !content->is_string()) {
    throw fail("choices[0].message.content is not a string");
  }
  completion.content = content->get<std::string>();
  return completion;
}

}  // namespace

std::string to_string(ResponseFormat format) {
  switch (format) {
    case ResponseFormat::json_schema:
      return "json_schema";
    case ResponseFormat::json_object:
      return "json_object";
    case ResponseFormat::none:
      return "none";
  }
  return "none";
}

ChatClient::ChatClient(Transport& transport, ClientOptions options)
    : transport_(transport), options_(std::move(options)) {
  if (!options_.sleep) {
    options_.sleep = [](double seconds) {
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    };
  }
}

json ChatClient::request_body(const std::string& model, const std::vector<ChatMessage>& messages,
                              record::JudgeKind kind, ResponseFormat format) {
  json body = {{"model", model}, {"messages", messages}, {"temperature", 0}, {"stream", false}};
  if (format == ResponseFormat::json_schema) {
    body["response_format"] = {{"type", "json_schema"},
                               {"json_schema",
                                {{"name", response_schema_name(kind)},
                                 {"strict", true},
                                 {"schema", response_schema(kind)}}}};
  } else if (format == ResponseFormat::json_object) {
    body["response_format"] = {{"type", "json_object"}};
  }
  return body;
}

double ChatClient::retry_delay(const HttpResponse& response, int retry) const {
  if (const auto seconds = parse_retry_after(response.retry_after)) {
    return std::min(*seconds, options_.max_backoff_s);
  }
  return std::min(options_.initial_backoff_s * std::pow(2.0, retry), options_.max_backoff_s);
}

Completion ChatClient::complete(const std::vector<ChatMessage>& messages, record::JudgeKind kind) {
  int retry = 0;
  int requests = 0;
  while (true) {
    const HttpResponse response =
        transport_.post_json(request_body(options_.model, messages, kind, format_).dump());
    ++requests;
    if (response.status == 200) return read_completion(response.body);
    // A rejected format is a capability of the server, not a transient failure: step down
    // once per format without spending a retry, and keep the weaker format for later calls.
    if (format_ != ResponseFormat::none && rejects_response_format(response)) {
      format_ = format_ == ResponseFormat::json_schema ? ResponseFormat::json_object
                                                       : ResponseFormat::none;
      continue;
    }
    if (!is_retryable(response) || retry == options_.max_retries) {
      throw JudgeError(fmt::format("chat completion failed after {} request{}: {}", requests,
                                   requests == 1 ? "" : "s", describe(response)));
    }
    options_.sleep(retry_delay(response, retry));
    ++retry;
  }
}

}  // namespace d2k::judge
