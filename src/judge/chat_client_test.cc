#include "judge/chat_client.h"

#include <deque>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "judge/evidence_repair.h"

namespace d2k::judge {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Answers with scripted responses, in order, and keeps every request body.
class FakeTransport : public Transport {
 public:
  explicit FakeTransport(std::deque<HttpResponse> script) : script_(std::move(script)) {}

  HttpResponse post_json(const std::string& body) override {
    bodies.push_back(json::parse(body));
    if (script_.empty()) return {.status = 500, .body = "script exhausted"};
    HttpResponse next = script_.front();
    script_.pop_front();
    return next;
  }

  std::vector<json> bodies;

 private:
  std::deque<HttpResponse> script_;
};

HttpResponse completion(const std::string& content, json usage = nullptr) {
  json body = {{"choices",
                {{{"index", 0},
                  {"message", {{"role", "assistant"}, {"content", content}}},
                  {"finish_reason", "stop"}}}}};
  if (!usage.is_null()) body["usage"] = usage;
  return {.status = 200, .body = body.dump()};
}

HttpResponse status(int code, const std::string& message = "",
                    const std::string& retry_after = "") {
  return {.status = code,
          .body = json{{"error", {{"message", message}, {"type", "invalid_request_error"}}}}.dump(),
          .retry_after = retry_after};
}

class JudgeChatClient : public ::testing::Test {
 protected:
  ChatClient client(FakeTransport& transport) {
    return ChatClient(transport, {.model = "judge-model",
                                  .max_retries = 3,
                                  .initial_backoff_s = 2.0,
                                  .max_backoff_s = 30.0,
                                  .sleep = [this](double s) { sleeps_.push_back(s); }});
  }

  const std::vector<ChatMessage> messages_{{"system", "s"}, {"user", "u"}};
  std::vector<double> sleeps_;
};

TEST_F(JudgeChatClient, SendsModelMessagesTemperatureAndAStrictSchema) {
  FakeTransport transport({completion("{}")});
  ChatClient chat = client(transport);
  EXPECT_EQ(chat.complete(messages_, record::JudgeKind::impl).content, "{}");
  ASSERT_EQ(transport.bodies.size(), 1u);
  const json& body = transport.bodies[0];
  EXPECT_EQ(body["model"], "judge-model");
  EXPECT_EQ(body["temperature"], 0);
  EXPECT_EQ(body["messages"][1], (json{{"role", "user"}, {"content", "u"}}));
  EXPECT_EQ(body["response_format"]["type"], "json_schema");
  EXPECT_EQ(body["response_format"]["json_schema"]["name"], "d2k_judge_impl");
  EXPECT_EQ(body["response_format"]["json_schema"]["strict"], true);
  const json& level =
      body["response_format"]["json_schema"]["schema"]["properties"]["levels"]["items"];
  EXPECT_EQ(level["required"], (json{"id", "solution"}));
  EXPECT_EQ(level["properties"]["solution"]["properties"]["evidence"]["maxItems"], 4);
}

TEST_F(JudgeChatClient, ReadsTokenUsageWithCachedTokens) {
  FakeTransport transport(
      {completion("{}", {{"prompt_tokens", 1200},
                         {"completion_tokens", 300},
                         {"total_tokens", 1500},
                         {"prompt_tokens_details", {{"cached_tokens", 1024}}}})});
  ChatClient chat = client(transport);
  const record::TokenUsage usage = chat.complete(messages_, record::JudgeKind::impl).usage;
  EXPECT_EQ(usage.prompt_tokens, 1200);
  EXPECT_EQ(usage.completion_tokens, 300);
  EXPECT_EQ(usage.total_tokens, 1500);
  EXPECT_EQ(usage.cached_tokens, 1024);
}

TEST_F(JudgeChatClient, RejectedSchemaFallsBackToJsonModeAndStaysThere) {
  FakeTransport transport(
      {status(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported"),
       completion("{}"), completion("{}")});
  ChatClient chat = client(transport);
  chat.complete(messages_, record::JudgeKind::design);
  chat.complete(messages_, record::JudgeKind::design);
  ASSERT_EQ(transport.bodies.size(), 3u);
  EXPECT_EQ(transport.bodies[0]["response_format"]["type"], "json_schema");
  EXPECT_EQ(transport.bodies[1]["response_format"], (json{{"type", "json_object"}}));
  EXPECT_EQ(transport.bodies[2]["response_format"], (json{{"type", "json_object"}}));
  EXPECT_EQ(chat.format(), ResponseFormat::json_object);
  EXPECT_TRUE(sleeps_.empty());
}

TEST_F(JudgeChatClient, RejectedJsonModeFallsBackToNoFormat) {
  FakeTransport transport({status(400, "response_format json_schema unsupported"),
                           status(400, "unknown field response_format"), completion("{}")});
  ChatClient chat = client(transport);
  chat.complete(messages_, record::JudgeKind::impl);
  ASSERT_EQ(transport.bodies.size(), 3u);
  EXPECT_FALSE(transport.bodies[2].contains("response_format"));
  EXPECT_EQ(chat.format(), ResponseFormat::none);
}

TEST_F(JudgeChatClient, OtherBadRequestsAreNotRetried) {
  FakeTransport transport({status(400, "messages: too long"), completion("{}")});
  ChatClient chat = client(transport);
  try {
    chat.complete(messages_, record::JudgeKind::impl);
    FAIL() << "a 400 was accepted";
  } catch (const JudgeError& error) {
    EXPECT_STREQ(error.what(),
                 "chat completion failed after 1 request: HTTP 400: messages: too long");
  }
  EXPECT_EQ(transport.bodies.size(), 1u);
}

TEST_F(JudgeChatClient, UnauthorizedIsNotRetried) {
  FakeTransport transport({status(401, "invalid api key")});
  ChatClient chat = client(transport);
  EXPECT_THROW(chat.complete(messages_, record::JudgeKind::impl), JudgeError);
  EXPECT_EQ(transport.bodies.size(), 1u);
}

TEST_F(JudgeChatClient, RateLimitHonorsRetryAfterCappedAtTheMaximum) {
  FakeTransport transport({status(429, "slow down", "7"), status(429, "slow down", "120"),
                           status(429, "slow down", "Wed, 21 Oct 2026 07:28:00 GMT"),
                           completion("{}")});
  ChatClient chat = client(transport);
  chat.complete(messages_, record::JudgeKind::impl);
  // 7 s as asked; 120 s capped at 30 s; an HTTP date falls back to the back-off (2 * 2^2).
  EXPECT_THAT(sleeps_, ElementsAre(7.0, 30.0, 8.0));
  EXPECT_EQ(transport.bodies.size(), 4u);
}

TEST_F(JudgeChatClient, ServerErrorsBackOffExponentiallyThenGiveUp) {
  FakeTransport transport({status(500), status(502), status(503), status(504), completion("{}")});
  ChatClient chat = client(transport);
  try {
    chat.complete(messages_, record::JudgeKind::impl);
    FAIL() << "succeeded past the retry limit";
  } catch (const JudgeError& error) {
    EXPECT_THAT(error.what(), HasSubstr("after 4 requests: HTTP 504"));
  }
  EXPECT_THAT(sleeps_, ElementsAre(2.0, 4.0, 8.0));
}

TEST_F(JudgeChatClient, ConnectionFailuresAreRetried) {
  FakeTransport transport({{.status = 0, .error = "Read"}, completion("{\"ok\": 1}")});
  ChatClient chat = client(transport);
  EXPECT_EQ(chat.complete(messages_, record::JudgeKind::impl).content, "{\"ok\": 1}");
  EXPECT_THAT(sleeps_, ElementsAre(2.0));
}

TEST_F(JudgeChatClient, TruncatedRefusedOrEmptyRepliesAreErrorsThatKeepTheirUsage) {
  json truncated = json::parse(completion("{\"levels\": [").body);
  truncated["choices"][0]["finish_reason"] = "length";
  truncated["usage"] = {{"prompt_tokens", 10}, {"completion_tokens", 4000}, {"total_tokens", 4010}};
  json refused = json::parse(completion("").body);
  refused["choices"][0]["message"]["refusal"] = "I cannot help with that.";
  json empty = json::parse(completion("").body);
  empty["choices"][0]["message"]["content"] = nullptr;
  FakeTransport transport({{.status = 200, .body = truncated.dump()},
                           {.status = 200, .body = refused.dump()},
                           {.status = 200, .body = empty.dump()},
                           {.status = 200, .body = "<html>"}});
  ChatClient chat = client(transport);
  record::TokenUsage usage;
  const auto failure = [&] {
    try {
      chat.complete(messages_, record::JudgeKind::impl);
    } catch (const JudgeError& error) {
      usage = error.usage();
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(failure(), "the reply was cut off at the token limit");
  EXPECT_EQ(usage.completion_tokens, 4000);
  EXPECT_EQ(failure(), "the model refused: I cannot help with that.");
  EXPECT_EQ(failure(), "choices[0].message.content is not a string");
  EXPECT_THAT(failure(), HasSubstr("a body that is not a JSON object: <html>"));
  EXPECT_EQ(transport.bodies.size(), 4u);
}

// The repair loop, with a check that accepts only the reply "good".
class JudgeEvidenceRepair : public JudgeChatClient {
 protected:
  record::JudgeAssessment run(FakeTransport& transport) {
    ChatClient chat = client(transport);
    record::JudgeAssessment out;
    const JudgeRequest request{record::JudgeKind::impl, messages_};
    run_with_repair(
        chat, templates_, request,
        [](std::string_view reply) {
          Verification v;
          if (reply == "good") {
            for (const char* id : {"L1", "L2", "L3"}) v.levels.push_back({.id = id, .score = 30});
            v.levels[2].score = 60;
          } else {
            v.errors = {"L2 evidence[0] (line 9): reply was " + std::string(reply)};
          }
          return v;
        },
        kDefaultMaxAttempts, out);
    return out;
  }

  TemplateSet templates_ = TemplateSet::load(TemplateSet::default_dir());
};

TEST_F(JudgeEvidenceRepair, RepairsWithTheExactErrorsAndTheEarlierReply) {
  FakeTransport transport(
      {completion("bad", {{"total_tokens", 100}}), completion("good", {{"total_tokens", 50}})});
  const record::JudgeAssessment out = run(transport);
  EXPECT_EQ(out.status, record::JudgeStatus::verified);
  EXPECT_EQ(out.attempts, 2);
  EXPECT_EQ(out.usage.total_tokens, 150);
  ASSERT_TRUE(out.js.has_value());
  EXPECT_DOUBLE_EQ(*out.js, 40.0);
  EXPECT_EQ(out.response, "good");
  ASSERT_EQ(transport.bodies.size(), 2u);
  const json& second = transport.bodies[1]["messages"];
  ASSERT_EQ(second.size(), 4u);
  EXPECT_EQ(second[2], (json{{"role", "assistant"}, {"content", "bad"}}));
  EXPECT_EQ(second[3]["role"], "user");
  EXPECT_THAT(second[3]["content"].get<std::string>(),
              HasSubstr("- L2 evidence[0] (line 9): reply was bad\n"));
}

TEST_F(JudgeEvidenceRepair, GivesUpAfterThreeAttemptsWithoutScores) {
  FakeTransport transport(
      {completion("bad1"), completion("bad2"), completion("bad3"), completion("good")});
  const record::JudgeAssessment out = run(transport);
  EXPECT_EQ(out.status, record::JudgeStatus::unverified);
  EXPECT_EQ(out.attempts, 3);
  EXPECT_TRUE(out.levels.empty());
  EXPECT_FALSE(out.js.has_value());
  EXPECT_EQ(out.response, "bad3");
  EXPECT_EQ(out.error, "L2 evidence[0] (line 9): reply was bad3");
  EXPECT_EQ(transport.bodies.size(), 3u);
  EXPECT_EQ(transport.bodies[2]["messages"].size(), 6u);
}

TEST_F(JudgeEvidenceRepair, EndpointFailureIsAnError) {
  FakeTransport transport({status(401, "invalid api key")});
  const record::JudgeAssessment out = run(transport);
  EXPECT_EQ(out.status, record::JudgeStatus::error);
  EXPECT_EQ(out.attempts, 0);
  EXPECT_THAT(out.error, HasSubstr("HTTP 401: invalid api key"));
}

}  // namespace
}  // namespace d2k::judge
