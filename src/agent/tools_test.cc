#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <stop_token>
#include <thread>

#include "agent/bash_tool.h"
#include "agent/cancelling_client_test_util.h"
#include "agent/read_tool.h"
#include "agent/run_session.h"
#include "agent/submit_design_tool.h"
#include "agent/submit_tool.h"
#include "agent/test_folder_test_util.h"
#include "agent/tool_set.h"
#include "agent/write_tool.h"
#include "store/store.h"
#include "util/hostile_text_test_util.h"

namespace d2k::agent {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(workspace_); }
  TestFolder folder_;
  fs::path workspace_ = folder_.path() / "ws";
};

TEST_F(ToolsTest, ReadsLinesWithOffsetAndLimit) {
  write_text(workspace_ / "f.txt", "one\ntwo\nthree\nfour\n");
  ReadTool read(workspace_);
  EXPECT_EQ(read.call({{"path", "f.txt"}}, {}).text, "one\ntwo\nthree\nfour\n");
  const auto part = read.call({{"path", "f.txt"}, {"offset", 2}, {"limit", 2}}, {});
  EXPECT_EQ(part.text, "two\nthree\n[lines 2-3 of 4; read on with offset=4]\n");
  EXPECT_TRUE(read.call({{"path", "f.txt"}, {"offset", 9}}, {}).is_error);
  EXPECT_TRUE(read.call({{"path", "missing.txt"}}, {}).is_error);
  EXPECT_EQ(read.call({{"path", "."}}, {}).text, "f.txt\n");
}

TEST_F(ToolsTest, ReadRefusesPathsOutsideTheWorkspace) {
  write_text(folder_.path() / "secret.txt", "secret");
  ReadTool read(workspace_);
  EXPECT_THROW(read.call({{"path", "../secret.txt"}}, {}), std::runtime_error);
}

TEST_F(ToolsTest, WritesFilesAndFolders) {
  WriteTool write(workspace_);
  const auto result = write.call({{"path", "sub/dir/x.py"}, {"content", "print(1)\n"}}, {});
  EXPECT_FALSE(result.is_error);
  EXPECT_EQ(read_text(workspace_ / "sub/dir/x.py"), "print(1)\n");
  write.call({{"path", "sub/dir/x.py"}, {"content", "2"}}, {});
  EXPECT_EQ(read_text(workspace_ / "sub/dir/x.py"), "2");
  EXPECT_TRUE(write.call({{"path", "sub"}, {"content", "x"}}, {}).is_error);
  EXPECT_THROW(write.call({{"path", "../escape.txt"}, {"content", "x"}}, {}), std::runtime_error);
  EXPECT_FALSE(fs::exists(folder_.path() / "escape.txt"));
}

TEST_F(ToolsTest, BashRunsInTheWorkspace) {
  HostCommandRunner runner;
  BashTool bash(workspace_, runner, "/usr/bin/python3");
  const auto result = bash.call({{"command", "pwd; echo err >&2; exit 3"}}, {});
  EXPECT_FALSE(result.is_error);
  EXPECT_NE(result.text.find(workspace_.string()), std::string::npos);
  EXPECT_NE(result.text.find("err"), std::string::npos);
  EXPECT_NE(result.text.find("exited with status 3"), std::string::npos);
}

TEST_F(ToolsTest, BashKillsTheGroupAtTheTimeLimit) {
  HostCommandRunner runner;
  BashTool bash(workspace_, runner, "/usr/bin/python3");
  const auto started = std::chrono::steady_clock::now();
  const auto result = bash.call({{"command", "sleep 30 & sleep 30"}, {"timeout", 0.5}}, {});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.text.find("time limit"), std::string::npos);
}

TEST_F(ToolsTest, BashKillsTheGroupWhenTheCallIsCancelled) {
  HostCommandRunner runner;
  BashTool bash(workspace_, runner, "/usr/bin/python3");
  CancellingClient client(std::chrono::milliseconds(300));
  const auto started = std::chrono::steady_clock::now();
  const auto result =
      bash.call({{"command", "sleep 30 & echo started; sleep 30"}}, client.token());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.text.find("cancelled"), std::string::npos) << result.text;
  EXPECT_NE(result.text.find("started"), std::string::npos) << result.text;
}

TEST_F(ToolsTest, BashsPython3IsTheEvaluationsInterpreter) {
  // The interpreter evaluations use, wherever it is; its folder comes first on PATH.
  const fs::path python = folder_.path() / "interpreter" / "python3";
  write_text(python, "#!/bin/sh\necho evaluations-python \"$@\"\n");
  fs::permissions(python, fs::perms::owner_all);
  HostCommandRunner runner;
  BashTool bash(workspace_, runner, python);
  EXPECT_NE(bash.call({{"command", "python3 -V"}}, {}).text.find("evaluations-python -V"), std::string::npos);
  EXPECT_NE(bash.spec().description.find(python.string()), std::string::npos);
}

TEST_F(ToolsTest, BashOutputIsBounded) {
  HostCommandRunner runner;
  BashTool bash(workspace_, runner, "/usr/bin/python3");
  const auto result = bash.call({{"command", "head -c 1000000 /dev/zero | tr '\\0' x"}}, {});
  EXPECT_LT(result.text.size(), 70'000u);
  EXPECT_NE(result.text.find("more bytes"), std::string::npos);
}

// Stores what it is asked to evaluate; verdicts come from the file's first line. A file that
// starts with "slow" runs until the call is cancelled.
class FakeEvaluator : public SubmissionEvaluator {
 public:
  explicit FakeEvaluator(store::Store& store) : store_(store) {}

  record::EvaluationResult evaluate(const fs::path& solution, std::stop_token stop) override {
    evaluated.push_back(solution);
    const std::string text = read_text(solution);
    if (text.rfind("slow", 0) == 0) {
      while (!stop.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      throw std::runtime_error("the evaluation was cancelled");
    }
    const bool good = text.rfind("good", 0) == 0;
    return save("solution", good ? 1.0 : std::optional<double>());
  }
  record::EvaluationResult baseline(std::optional<int64_t> stored, std::stop_token) override {
    ++baseline_requests;
    if (stored) return *store_.evaluations().load(*stored);
    return save("baseline", 2.0);
  }

  std::vector<fs::path> evaluated;
  int baseline_requests = 0;

 private:
  record::EvaluationResult save(const std::string& kind, std::optional<double> latency) {
    record::EvaluationResult result;
    result.task_id = "t";
    result.impl_kind = kind;
    record::WorkloadResult workload;
    workload.workload = "w";
    workload.verdict = latency ? record::Verdict::passed : record::Verdict::incorrect;
    if (latency) {
      workload.latency = record::Latency{};
      workload.latency->mean_s = *latency;
    }
    result.workloads.push_back(workload);
    store_.evaluations().save(result);
    return result;
  }

  store::Store& store_;
};

class SubmitToolTest : public ToolsTest {
 protected:
  store::AgentRun new_run(int budget) {
    store::AgentRun run;
    run.task_id = "t";
    run.config = "none";
    run.workspace = workspace_.string();
    run.turn_budget = budget;
    run.turn_source = kTurnsFromToolCalls;
    run.status = "prepared";
    agent_store_.create_run(run);
    return run;
  }

  fs::path store_path_ = folder_.path() / "store.sqlite";
  store::Store store_ = store::Store::open(store_path_);
  store::AgentStore agent_store_ = store::Store::open(store_path_).agent_runs();
};

TEST_F(SubmitToolTest, EvaluatesASnapshotAndRecordsTheSubmission) {
  RunSession session(agent_store_, new_run(10));
  FakeEvaluator evaluator(store_);
  SubmitTool submit(workspace_, submissions_dir_for(workspace_), evaluator, session);
  write_text(workspace_ / "solution.py", "bad");
  const auto first = submit.call(json::object(), {});
  write_text(workspace_ / "solution.py", "good");
  const auto second = submit.call({{"path", "solution.py"}}, {});

  ASSERT_TRUE(first.structured && second.structured);
  EXPECT_EQ((*first.structured)["eligible"], false);
  EXPECT_EQ((*second.structured)["eligible"], true);
  EXPECT_DOUBLE_EQ((*second.structured)["geomean_speedup"].get<double>(), 2.0);
  // Snapshots live outside the workspace and keep what was submitted.
  ASSERT_EQ(evaluator.evaluated.size(), 2u);
  EXPECT_EQ(evaluator.evaluated[0].parent_path().parent_path(), submissions_dir_for(workspace_));
  EXPECT_EQ(read_text(evaluator.evaluated[0]), "bad");
  EXPECT_EQ(evaluator.baseline_requests, 1);

  const auto submissions = agent_store_.events(session.run().id, std::string(kSubmissionEvent));
  ASSERT_EQ(submissions.size(), 2u);
  EXPECT_EQ(submissions[1].evaluation_id, (*second.structured)["evaluation_id"].get<int64_t>());
  const auto baseline = agent_store_.events(session.run().id, std::string(kEvaluationEvent));
  ASSERT_EQ(baseline.size(), 1u);
  EXPECT_EQ(agent_store_.load_run(session.run().id)->baseline_evaluation_id, baseline[0].evaluation_id);
}

TEST_F(SubmitToolTest, ACancelledSubmissionStopsItsEvaluationAndIsRecordedAsCancelled) {
  RunSession session(agent_store_, new_run(10));
  FakeEvaluator evaluator(store_);
  SubmitTool submit(workspace_, submissions_dir_for(workspace_), evaluator, session);
  write_text(workspace_ / "solution.py", "slow");
  CancellingClient client(std::chrono::milliseconds(100));
  EXPECT_THROW(submit.call(json::object(), client.token()), std::runtime_error);
  const auto submissions = agent_store_.events(session.run().id, std::string(kSubmissionEvent));
  ASSERT_EQ(submissions.size(), 1u);
  EXPECT_EQ(submissions[0].payload["cancelled"], true);
  EXPECT_FALSE(submissions[0].evaluation_id.has_value());
}

TEST_F(SubmitToolTest, EveryToolHasATitleDescribedArgumentsAndHonestHints) {
  RunSession session(agent_store_, new_run(10));
  FakeEvaluator evaluator(store_);
  HostCommandRunner runner;
  std::map<std::string, mcp::ToolSpec> specs;
  for (const auto config : {GuidanceConfig::none, GuidanceConfig::design}) {
    for (const auto& tool : make_tools(config, workspace_, runner, evaluator, session)) {
      const mcp::ToolSpec spec = tool->spec();
      specs[spec.name] = spec;
      EXPECT_FALSE(spec.title.empty()) << spec.name;
      for (const auto& [name, property] : spec.input_schema["properties"].items()) {
        EXPECT_TRUE(property.contains("description")) << spec.name << "." << name;
      }
      EXPECT_FALSE(spec.hints.open_world) << spec.name;  // nothing reaches the network
    }
  }
  ASSERT_EQ(specs.size(), 5u);
  EXPECT_TRUE(specs["read"].hints.read_only);
  EXPECT_TRUE(specs["write"].hints.destructive);
  EXPECT_TRUE(specs["bash"].hints.destructive);
  EXPECT_FALSE(specs["submit"].hints.read_only);
  EXPECT_FALSE(specs["submit"].hints.destructive);
  // A submission is one file, evaluated on its own; the tool says so.
  EXPECT_NE(specs["submit"].description.find("cannot import other files"), std::string::npos);
  EXPECT_NE(specs["submit"].input_schema["properties"]["path"]["description"].get<std::string>().find("single"),
            std::string::npos);
}

TEST_F(SubmitToolTest, MissingFileIsAToolError) {
  RunSession session(agent_store_, new_run(10));
  FakeEvaluator evaluator(store_);
  SubmitTool submit(workspace_, submissions_dir_for(workspace_), evaluator, session);
  EXPECT_TRUE(submit.call({{"path", "nope.py"}}, {}).is_error);
  EXPECT_TRUE(evaluator.evaluated.empty());
}

TEST_F(SubmitToolTest, BudgetRefusesCallsOnceSpentAndEveryCallIsRecorded) {
  RunSession session(agent_store_, new_run(2));
  EXPECT_FALSE(session.before_call("read", {{"path", "a"}}));
  session.after_call("read", {}, {"text", false, std::nullopt});
  EXPECT_FALSE(session.before_call("bash", {{"command", "ls"}}));
  session.after_call("bash", {}, {"out", false, std::nullopt});
  const auto refused = session.before_call("submit", json::object());
  ASSERT_TRUE(refused);
  EXPECT_TRUE(refused->is_error);
  EXPECT_NE(refused->text.find("budget"), std::string::npos);

  const auto run = *agent_store_.load_run(session.run().id);
  EXPECT_EQ(run.turns_used, 2);
  std::vector<std::string> kinds;
  for (const auto& event : agent_store_.events(run.id)) kinds.push_back(event.kind + ":" + event.tool + ":" + std::to_string(event.turn));
  EXPECT_EQ(kinds, (std::vector<std::string>{"call:read:1", "result:read:1", "call:bash:2",
                                             "result:bash:2", "refused:submit:2"}));
}

store::AgentRun external_run(store::AgentStore& agent_store, store::AgentRun run) {
  run.agent = "";  // prepared with `d2k agent prepare`, driven by a client d2k did not start
  agent_store.update_run(run);
  return run;
}

TEST_F(SubmitToolTest, AnExternallyDrivenRunEndsWhenItsBudgetIsSpent) {
  RunSession session(agent_store_, external_run(agent_store_, new_run(2)), &store_);
  FakeEvaluator evaluator(store_);
  SubmitTool submit(workspace_, submissions_dir_for(workspace_), evaluator, session);
  session.open();
  EXPECT_EQ(agent_store_.load_run(session.run().id)->status, "running");
  write_text(workspace_ / "solution.py", "good");
  for (int call = 0; call < 2; ++call) {
    EXPECT_FALSE(session.before_call("submit", json::object()));
    session.after_call("submit", json::object(), submit.call(json::object(), {}));
  }
  const auto run = *agent_store_.load_run(session.run().id);
  EXPECT_EQ(run.status, "finished");
  EXPECT_TRUE(run.finished_at.has_value());
  const auto submissions = agent_store_.events(run.id, std::string(kSubmissionEvent));
  ASSERT_EQ(submissions.size(), 2u);
  EXPECT_EQ(run.final_evaluation_id, submissions[0].evaluation_id);  // the earliest wins a tie
  const auto closed = agent_store_.events(run.id, std::string(kClosedEvent));
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].payload["reason"], "budget spent");
}

TEST_F(SubmitToolTest, AnExternallyDrivenRunEndsWhenItsClientDisconnectsAndReopens) {
  RunSession session(agent_store_, external_run(agent_store_, new_run(10)), &store_);
  FakeEvaluator evaluator(store_);
  SubmitTool submit(workspace_, submissions_dir_for(workspace_), evaluator, session);
  session.open();
  write_text(workspace_ / "solution.py", "good");
  submit.call(json::object(), {});
  session.close("client disconnected");
  auto run = *agent_store_.load_run(session.run().id);
  EXPECT_EQ(run.status, "finished");
  EXPECT_TRUE(run.final_evaluation_id.has_value());
  // A client that connects again reopens it.
  RunSession again(agent_store_, run, &store_);
  again.open();
  run = *agent_store_.load_run(run.id);
  EXPECT_EQ(run.status, "running");
  EXPECT_FALSE(run.finished_at.has_value());
}

TEST_F(SubmitToolTest, ARunThatDAgentRunDrivesIsLeftForItToEnd) {
  store::AgentRun launched = new_run(1);
  launched.agent = "claude";
  launched.status = "running";
  agent_store_.update_run(launched);
  RunSession session(agent_store_, launched, &store_);
  session.open();
  EXPECT_FALSE(session.before_call("read", {{"path", "a"}}));
  session.after_call("read", {}, {"text", false, std::nullopt});
  session.close("client disconnected");
  EXPECT_EQ(agent_store_.load_run(launched.id)->status, "running");
  EXPECT_TRUE(agent_store_.events(launched.id, std::string(kClosedEvent)).empty());
}

TEST_F(SubmitToolTest, SubmitDesignListsEveryViolationAndKeepsAValidDesign) {
  RunSession session(agent_store_, new_run(10));
  SubmitDesignTool submit_design(workspace_, session);
  const auto not_json = submit_design.call({{"content", "{oops"}}, {});
  EXPECT_TRUE(not_json.is_error);
  const auto invalid = submit_design.call({{"content", R"({"level_1_high_level_algorithmic_insights": 3})"}}, {});
  EXPECT_TRUE(invalid.is_error);
  EXPECT_GE((*invalid.structured)["violations"].size(), 2u);  // a wrong type and missing properties
  EXPECT_FALSE(fs::exists(workspace_ / "model_design.json"));

  const std::string valid = read_text(fs::path(D2K_SOURCE_DIR) / "tasks/muon_orthogonalization/guidance.json");
  const auto accepted = submit_design.call({{"content", valid}}, {});
  EXPECT_FALSE(accepted.is_error) << accepted.text;
  EXPECT_TRUE(fs::exists(workspace_ / "model_design.json"));
  EXPECT_FALSE(submit_design.call(json::object(), {}).is_error);  // reads the kept file
  EXPECT_EQ(agent_store_.events(session.run().id, std::string(kDesignSubmissionEvent)).size(), 3u);
}

// A bounded random-input test of the design reader: whatever a design holds (random bytes,
// nesting far past the depth limit, a valid design with bytes changed), submit_design answers
// with a tool error or keeps it, never a crash.
TEST_F(SubmitToolTest, HostileDesignsGetAnErrorNeverACrash) {
  RunSession session(agent_store_, new_run(10));
  SubmitDesignTool submit_design(workspace_, session);
  const std::string valid = read_text(fs::path(D2K_SOURCE_DIR) / "tasks/muon_orthogonalization/guidance.json");
  util::HostileText hostile(5);
  int refused = 0;
  constexpr int kRounds = 300;
  for (int round = 0; round < kRounds; ++round) {
    const std::string text = hostile.next(valid);
    if (submit_design.call({{"content", text}}, {}).is_error) ++refused;
  }
  EXPECT_GT(refused, kRounds / 2);
}

}  // namespace
}  // namespace d2k::agent
