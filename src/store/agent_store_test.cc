#include "store/agent_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "store/store.h"

namespace d2k::store {
namespace {

class AgentStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "d2k_agent_store_test_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path store_path() const { return dir_ / "store.sqlite"; }

  static AgentRun sample_run() {
    AgentRun run;
    run.task_id = "cpu_scale_add";
    run.config = "L1+L2";
    run.workspace = "/tmp/ws";
    run.turn_budget = 350;
    run.turn_source = "tool_calls";
    run.status = "prepared";
    return run;
  }

  // A passed-or-not evaluation to point at (runs reference evaluations by foreign key).
  int64_t save_evaluation() {
    record::EvaluationResult result;
    result.task_id = "cpu_scale_add";
    result.impl_kind = "solution";
    return Store::open(store_path()).evaluations().save(result);
  }

  std::filesystem::path dir_;
};

TEST_F(AgentStoreTest, RunRoundTripsEveryField) {
  AgentStore store = Store::open(store_path()).agent_runs();
  AgentRun run = sample_run();
  const int64_t id = store.create_run(run);
  EXPECT_GT(id, 0);
  EXPECT_FALSE(run.created_at.empty());

  const int64_t evaluation = save_evaluation();
  run.agent = "claude";
  run.model = "some-model";
  run.turns_used = 12;
  run.status = "finished";
  run.finished_at = "2026-11-30T01:00:00Z";
  run.prompt_tokens = 1000;
  run.completion_tokens = 200;
  run.cost_usd = 0.25;
  run.final_evaluation_id = evaluation;
  run.baseline_evaluation_id = evaluation;
  store.update_run(run);

  const auto loaded = store.load_run(id);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->created_at, run.created_at);
  EXPECT_EQ(loaded->finished_at, run.finished_at);
  EXPECT_EQ(loaded->agent, "claude");
  EXPECT_EQ(loaded->model, "some-model");
  EXPECT_EQ(loaded->config, "L1+L2");
  EXPECT_EQ(loaded->turn_budget, 350);
  EXPECT_EQ(loaded->turns_used, 12);
  EXPECT_EQ(loaded->turn_source, "tool_calls");
  EXPECT_EQ(loaded->status, "finished");
  EXPECT_EQ(loaded->prompt_tokens, 1000);
  EXPECT_EQ(loaded->completion_tokens, 200);
  EXPECT_EQ(loaded->cost_usd, 0.25);
  EXPECT_EQ(loaded->final_evaluation_id, evaluation);
  EXPECT_EQ(loaded->baseline_evaluation_id, evaluation);
  EXPECT_FALSE(store.load_run(id + 1));
}

TEST_F(AgentStoreTest, FindsTheNewestRunOfAWorkspace) {
  AgentStore store = Store::open(store_path()).agent_runs();
  AgentRun first = sample_run();
  store.create_run(first);
  AgentRun second = sample_run();
  store.create_run(second);
  EXPECT_EQ(store.latest_run_in("/tmp/ws")->id, second.id);
  EXPECT_FALSE(store.latest_run_in("/tmp/other"));
}

TEST_F(AgentStoreTest, EventsAreNumberedInOrderAndFilteredByKind) {
  AgentStore store = Store::open(store_path()).agent_runs();
  AgentRun run = sample_run();
  store.create_run(run);
  const int64_t evaluation = save_evaluation();
  AgentEvent call{run.id, 0, "", 1, "call", "submit", {{"path", "solution.py"}}, std::nullopt};
  AgentEvent submission{run.id, 0, "", 1, "submission", "submit", {{"eligible", false}}, evaluation};
  AgentEvent result{run.id, 0, "", 1, "result", "bash", {{"text", "bad \xff byte"}}, std::nullopt};
  store.append_event(call);
  store.append_event(submission);
  store.append_event(result);
  EXPECT_EQ(call.seq, 1);
  EXPECT_EQ(result.seq, 3);

  const auto all = store.events(run.id);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].payload["path"], "solution.py");
  EXPECT_FALSE(all[0].at.empty());
  EXPECT_EQ(all[2].payload["text"], "bad \xEF\xBF\xBD byte");
  const auto submissions = store.events(run.id, "submission");
  ASSERT_EQ(submissions.size(), 1u);
  EXPECT_EQ(submissions[0].evaluation_id, evaluation);
  EXPECT_EQ(submissions[0].turn, 1);
}

TEST_F(AgentStoreTest, UpdatingAMissingRunFails) {
  AgentStore store = Store::open(store_path()).agent_runs();
  AgentRun run = sample_run();
  run.id = 99;
  EXPECT_THROW(store.update_run(run), StoreError);
}

}  // namespace
}  // namespace d2k::store
