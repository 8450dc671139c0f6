// End to end: `Judge` against an OpenAI-compatible server on 127.0.0.1 (httplib::Server in a
// thread) that replays recorded replies, with a temporary store.

#include <stdlib.h>

#include <chrono>
#include <deque>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include "judge/judge.h"
#include "task/task_loader.h"
#include "util/hash.h"
#include "util/temp_dir.h"

namespace d2k::judge {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// One scripted answer of the server.
struct Step {
  int status = 200;
  std::string body;
  std::string retry_after;
  int delay_ms = 0;
  // When set, decides the answer from the request body instead (the format fallback).
  std::function<Step(const json& request)> respond;
};

struct Received {
  json body;
  std::string authorization;
};

class LoopbackServer {
 public:
  LoopbackServer() {
    server_.Post(
        "/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
          Step step;
          {
            std::lock_guard<std::mutex> lock(mutex_);
            received_.push_back({json::parse(req.body), req.get_header_value("Authorization")});
            if (script_.empty()) {
              step = {.status = 500, .body = "{\"error\": {\"message\": \"script exhausted\"}}"};
            } else {
              step = script_.front();
              script_.pop_front();
            }
          }
          if (step.respond) step = step.respond(json::parse(req.body));
          if (step.delay_ms > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(step.delay_ms));
          res.status = step.status;
          if (!step.retry_after.empty()) res.set_header("Retry-After", step.retry_after);
          res.set_content(step.body, "application/json");
        });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LoopbackServer() {
    server_.stop();
    thread_.join();
  }

  void script(std::deque<Step> steps) {
    std::lock_guard<std::mutex> lock(mutex_);
    script_ = std::move(steps);
  }
  std::vector<Received> received() {
    std::lock_guard<std::mutex> lock(mutex_);
    return received_;
  }
  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::deque<Step> script_;
  std::vector<Received> received_;
};

// A reply as the endpoint sends it, with the judge's JSON as the message content.
Step reply(const json& content) {
  return {.body = json{{"id", "chatcmpl-1"},
                       {"object", "chat.completion"},
                       {"choices",
                        {{{"index", 0},
                          {"message", {{"role", "assistant"}, {"content", content.dump()}}},
                          {"finish_reason", "stop"}}}},
                       {"usage",
                        {{"prompt_tokens", 1000},
                         {"completion_tokens", 200},
                         {"total_tokens", 1200},
                         {"prompt_tokens_details", {{"cached_tokens", 512}}}}}}
                      .dump()};
}

Step error_step(int status, const std::string& message, const std::string& retry_after = "") {
  return {.status = status,
          .body = json{{"error", {{"message", message}}}}.dump(),
          .retry_after = retry_after};
}

constexpr const char* kSolution =
    "import torch\n"
    "\n"
    "\n"
    "def run(x: torch.Tensor) -> torch.Tensor:\n"
    "    # One buffer, updated in place.\n"
    "    out = torch.sub(x, x.amax(dim=-1, keepdim=True))\n"
    "    out.exp_()\n"
    "    out.mul_(out.sum(dim=-1, keepdim=True).reciprocal_())\n"
    "    return out\n";

json level(const std::string& id, double score, const std::string& band, int start, int end,
           const std::string& quote) {
  return {{"id", id},
          {"solution",
           {{"score", score},
            {"band", band},
            {"evidence", {{{"line_start", start}, {"line_end", end}, {"quote", quote}}}},
            {"reason", "realized and missing angles"},
            {"alternative_design", "none"}}}};
}

json valid_impl() {
  return {{"levels",
           {level("L1", 75, "substantial_implementation", 6, 6,
                  "out = torch.sub(x, x.amax(dim=-1, keepdim=True))"),
            level("L2", 80, "substantial_implementation", 6, 7,
                  "out = torch.sub(x, x.amax(dim=-1, keepdim=True))\nout.exp_()"),
            level("L3", 70, "substantial_implementation", 8, 8,
                  "out.mul_(out.sum(dim=-1, keepdim=True).reciprocal_())")}}};
}

json bad_quote_impl() {
  json content = valid_impl();
  content["levels"][1]["solution"]["evidence"][0] = {
      {"line_start", 7}, {"line_end", 8}, {"quote", "out.exp_()\nout.mul_(out.sum())"}};
  return content;
}

class JudgeLoopback : public ::testing::Test {
 protected:
  void SetUp() override {
    solution_ = dir_ / "solution.py";
    std::ofstream(solution_) << kSolution;
    store_.emplace(store::Store::open(dir_ / "store.sqlite"));
  }

  Judge make_judge(double read_timeout_s = 5.0, int max_retries = 3) {
    return Judge(TemplateSet::load(TemplateSet::default_dir()),
                 {.base_url = server_.base_url(),
                  .model = "replay-model",
                  .api_key = "test-key",
                  .connect_timeout_s = 2.0,
                  .read_timeout_s = read_timeout_s,
                  .max_retries = max_retries,
                  .sleep = [this](double s) { sleeps_.push_back(s); }},
                 &*store_);
  }

  const task::Task task_ =
      task::load_task(std::filesystem::path(D2K_SOURCE_DIR) / "tasks" / "cpu_demo_softmax");
  LoopbackServer server_;
  util::TempDir temp_{"d2k_judge_test_"};
  std::filesystem::path dir_ = temp_.path();
  std::filesystem::path solution_;
  std::optional<store::Store> store_;
  std::vector<double> sleeps_;
};

TEST_F(JudgeLoopback, ValidReplyIsVerifiedAndStored) {
  server_.script({reply(valid_impl())});
  Judge judge = make_judge();
  const record::JudgeAssessment a = judge.assess_impl(task_, solution_, Correctness::correct);
  EXPECT_EQ(a.status, record::JudgeStatus::verified) << a.error;
  EXPECT_EQ(a.attempts, 1);
  ASSERT_TRUE(a.js.has_value());
  EXPECT_DOUBLE_EQ(*a.js, 75.0);
  EXPECT_EQ(a.usage.total_tokens, 1200);
  EXPECT_EQ(a.usage.cached_tokens, 512);
  EXPECT_EQ(a.response_format, "json_schema");
  EXPECT_EQ(a.model, "replay-model");
  EXPECT_EQ(a.base_url_host, "127.0.0.1:" + std::to_string(server_.port()));
  EXPECT_EQ(a.candidate_hash, util::hash_file(solution_));
  EXPECT_EQ(a.template_version, "impl-1+system-1+repair-1");

  const auto received = server_.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].authorization, "Bearer test-key");
  EXPECT_EQ(received[0].body["model"], "replay-model");
  EXPECT_EQ(received[0].body["response_format"]["type"], "json_schema");

  const auto stored = store_->judge_assessments().list();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].id, a.id);
  EXPECT_EQ(stored[0].status, record::JudgeStatus::verified);
  EXPECT_EQ(stored[0].levels[1].evidence[0].quote,
            "out = torch.sub(x, x.amax(dim=-1, keepdim=True))\nout.exp_()");
  EXPECT_EQ(stored[0].response, valid_impl().dump());
}

TEST_F(JudgeLoopback, BadQuoteIsRepairedOnTheSecondRequest) {
  server_.script({reply(bad_quote_impl()), reply(valid_impl())});
  Judge judge = make_judge();
  const record::JudgeAssessment a = judge.assess_impl(task_, solution_, Correctness::correct);
  EXPECT_EQ(a.status, record::JudgeStatus::verified) << a.error;
  EXPECT_EQ(a.attempts, 2);
  EXPECT_EQ(a.usage.total_tokens, 2400);

  const auto received = server_.received();
  ASSERT_EQ(received.size(), 2u);
  const json& messages = received[1].body["messages"];
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[2]["content"], bad_quote_impl().dump());
  EXPECT_THAT(messages[3]["content"].get<std::string>(),
              HasSubstr("- L2 evidence[0] (lines 7-8): quote line 2 does not match solution line "
                        "8 (only leading indentation may differ): expected "
                        "\"out.mul_(out.sum(dim=-1, keepdim=True).reciprocal_())\", got "
                        "\"out.mul_(out.sum())\"\n"));
  EXPECT_EQ(store_->judge_assessments().list()[0].attempts, 2);
}

TEST_F(JudgeLoopback, ReplyThatNeverVerifiesIsUnverifiedAfterThreeRequests) {
  server_.script({reply(bad_quote_impl()), reply(bad_quote_impl()), reply(bad_quote_impl()),
                  reply(valid_impl())});
  Judge judge = make_judge();
  const record::JudgeAssessment a = judge.assess_impl(task_, solution_, Correctness::correct);
  EXPECT_EQ(a.status, record::JudgeStatus::unverified);
  EXPECT_EQ(a.attempts, 3);
  EXPECT_EQ(server_.received().size(), 3u);
  const auto stored = store_->judge_assessments().list();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].status, record::JudgeStatus::unverified);
  EXPECT_TRUE(stored[0].levels.empty());
  EXPECT_FALSE(stored[0].js.has_value());
  EXPECT_THAT(stored[0].error, HasSubstr("L2 evidence[0] (lines 7-8)"));
}

TEST_F(JudgeLoopback, RateLimitIsRetriedAfterTheServersDelay) {
  server_.script({error_step(429, "rate limited", "3"), reply(valid_impl())});
  Judge judge = make_judge();
  const record::JudgeAssessment a = judge.assess_impl(task_, solution_, Correctness::correct);
  EXPECT_EQ(a.status, record::JudgeStatus::verified) << a.error;
  EXPECT_EQ(a.attempts, 1);
  EXPECT_THAT(sleeps_, ElementsAre(3.0));
  EXPECT_EQ(server_.received().size(), 2u);
}

TEST_F(JudgeLoopback, ReadTimeoutEndsAsAnErrorAfterBoundedRetries) {
  const Step slow = {.body = reply(valid_impl()).body, .delay_ms = 400};
  server_.script({slow, slow, slow});
  Judge judge = make_judge(/*read_timeout_s=*/0.1, /*max_retries=*/2);
  const record::JudgeAssessment a = judge.assess_impl(task_, solution_, Correctness::correct);
  EXPECT_EQ(a.status, record::JudgeStatus::error);
  EXPECT_THAT(a.error,
              HasSubstr("chat completion failed after 3 requests: no response (no complete "
                        "response within the read timeout"));
  EXPECT_THAT(sleeps_, ElementsAre(2.0, 4.0));
  EXPECT_EQ(server_.received().size(), 3u);
  const auto stored = store_->judge_assessments().list();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].status, record::JudgeStatus::error);
  EXPECT_EQ(stored[0].error, a.error);
}

TEST_F(JudgeLoopback, RejectedJsonSchemaFallsBackToJsonObject) {
  const Step by_format = {.respond = [](const json& request) {
    return request["response_format"]["type"] == "json_schema"
               ? error_step(400, "response_format type json_schema is not supported")
               : reply(valid_impl());
  }};
  server_.script({by_format, by_format});
  Judge judge = make_judge();
  const record::JudgeAssessment a = judge.assess_impl(task_, solution_, Correctness::correct);
  EXPECT_EQ(a.status, record::JudgeStatus::verified) << a.error;
  EXPECT_EQ(a.response_format, "json_object");
  const auto received = server_.received();
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[1].body["response_format"], (json{{"type", "json_object"}}));
  EXPECT_EQ(store_->judge_assessments().list()[0].response_format, "json_object");
}

TEST_F(JudgeLoopback, IncorrectSubmissionInTheStoreScoresZeroWithoutARequest) {
  record::EvaluationResult evaluation;
  evaluation.task_id = task_.id;
  evaluation.impl_kind = "solution";
  evaluation.impl_hash = util::hash_file(solution_);
  for (const task::Workload& w : task_.workloads) {
    evaluation.workloads.push_back({.workload = w.label, .verdict = record::Verdict::incorrect});
  }
  store_->evaluations().save(evaluation);
  Judge judge = make_judge();
  const record::JudgeAssessment a = judge.assess_impl(task_, solution_, Correctness::from_store);
  EXPECT_EQ(a.status, record::JudgeStatus::skipped_incorrect);
  EXPECT_EQ(a.correctness, "evaluation " + std::to_string(evaluation.id) + " (failed)");
  ASSERT_EQ(a.levels.size(), 3u);
  EXPECT_EQ(a.levels[2].score, 0.0);
  EXPECT_EQ(a.js, 0.0);
  EXPECT_TRUE(server_.received().empty());
  EXPECT_EQ(store_->judge_assessments().list()[0].status, record::JudgeStatus::skipped_incorrect);
}

TEST_F(JudgeLoopback, PassedEvaluationInTheStoreLetsTheJudgeRun) {
  record::EvaluationResult evaluation;
  evaluation.task_id = task_.id;
  evaluation.impl_kind = "solution";
  evaluation.impl_hash = util::hash_file(solution_);
  for (const task::Workload& w : task_.workloads) {
    evaluation.workloads.push_back({.workload = w.label, .verdict = record::Verdict::passed});
  }
  store_->evaluations().save(evaluation);
  server_.script({reply(valid_impl())});
  Judge judge = make_judge();
  const record::JudgeAssessment a = judge.assess_impl(task_, solution_, Correctness::from_store);
  EXPECT_EQ(a.status, record::JudgeStatus::verified) << a.error;
  EXPECT_EQ(a.correctness, "evaluation " + std::to_string(evaluation.id) + " (passed)");
}

TEST_F(JudgeLoopback, WithoutAStoredEvaluationCorrectnessIsRefused) {
  Judge judge = make_judge();
  try {
    judge.assess_impl(task_, solution_, Correctness::from_store);
    FAIL() << "judged without knowing correctness";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("no stored evaluation of"));
  }
  EXPECT_TRUE(server_.received().empty());
}

TEST_F(JudgeLoopback, DesignQuotesAreVerifiedAgainstTheDesign) {
  const std::filesystem::path design = dir_ / "model_design.json";
  std::ofstream(design) << R"({"level_2_dataflow_design": {"overview":
      "One output buffer is updated in place; no full-size temporaries."}})";
  const auto design_level = [](const std::string& id, double score, const std::string& quote) {
    json evidence = json::array();
    if (!quote.empty()) evidence.push_back({{"quote", quote}});
    return json{{"id", id},
                {"score", score},
                {"band", score > 0 ? "partial_design" : "absent"},
                {"evidence", evidence},
                {"reason", "r"},
                {"alternative_design", "none"}};
  };
  server_.script({reply(
      {{"levels",
        {design_level("L1", 0, ""), design_level("L2", 50, "One output buffer is updated in place"),
         design_level("L3", 0, "")}}})});
  Judge judge = make_judge();
  const record::JudgeAssessment a = judge.assess_design(task_, design);
  EXPECT_EQ(a.status, record::JudgeStatus::verified) << a.error;
  ASSERT_TRUE(a.js.has_value());
  EXPECT_NEAR(*a.js, 50.0 / 3.0, 1e-12);
  EXPECT_EQ(server_.received()[0].body["response_format"]["json_schema"]["name"],
            "d2k_judge_design");
  EXPECT_EQ(store_->judge_assessments().list()[0].kind, record::JudgeKind::design);
}

TEST_F(JudgeLoopback, BatchStoresEveryItemAndOneFailureDoesNotStopTheRest) {
  server_.script({reply(valid_impl())});
  Judge judge = make_judge();
  const std::vector<BatchItem> items = {
      {.kind = record::JudgeKind::impl,
       .task = "cpu_demo_softmax",
       .candidate = dir_ / "missing.py",
       .correct = true},
      {.kind = record::JudgeKind::impl,
       .task = "no_such_task",
       .candidate = solution_,
       .correct = true},
      {.kind = record::JudgeKind::impl,
       .task = "cpu_demo_softmax",
       .candidate = solution_,
       .correct = true},
      {.kind = record::JudgeKind::impl,
       .task = "cpu_demo_softmax",
       .candidate = solution_,
       .correct = false},
  };
  const auto results = judge.assess_batch(items, [&](const std::string& name) {
    if (name != task_.id) throw std::runtime_error("no task '" + name + "'");
    return task_;
  });
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].status, record::JudgeStatus::error);
  EXPECT_THAT(results[0].error, HasSubstr("missing.py"));
  EXPECT_EQ(results[1].status, record::JudgeStatus::error);
  EXPECT_EQ(results[1].error, "no task 'no_such_task'");
  EXPECT_EQ(results[2].status, record::JudgeStatus::verified) << results[2].error;
  EXPECT_EQ(results[3].status, record::JudgeStatus::skipped_incorrect);
  const auto stored = store_->judge_assessments().list();
  ASSERT_EQ(stored.size(), 4u);
  std::vector<record::JudgeStatus> statuses;
  for (auto it = stored.rbegin(); it != stored.rend(); ++it) statuses.push_back(it->status);
  EXPECT_THAT(statuses,
              ElementsAre(record::JudgeStatus::error, record::JudgeStatus::error,
                          record::JudgeStatus::verified, record::JudgeStatus::skipped_incorrect));
}

}  // namespace
}  // namespace d2k::judge
