#include "store/agent_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "store/store.h"

namespace d2k::store {
namespace {

class AgentStoreQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "d2k_agent_store_query_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    Store store = Store::open(path());
    record::EvaluationResult evaluation;
    evaluation.task_id = "alpha";
    evaluation.impl_kind = "solution";
    evaluation_ = store.evaluations().save(evaluation);
    Database db(path());
    db.exec(
        "INSERT INTO agent_runs (created_at, task_id, config, agent, model, workspace, "
        "turn_budget, turns_used, turn_source, status) VALUES "
        "('2026-01-02T00:00:00Z', 'beta', 'L1', 'a', 'm2', '/ws/2', 9, 3, 'agent', 'finished'), "
        "('2026-01-01T00:00:00Z', 'alpha', 'none', 'a', 'm1', '/ws/1', 5, 5, 'agent', 'failed')");
    Statement usage = db.prepare(
        "UPDATE agent_runs SET prompt_tokens = 10, completion_tokens = 2, cost_usd = 0.5, "
        "final_evaluation_id = ?1 WHERE id = 2");
    usage.bind_int(1, evaluation_);
    usage.step();
    Statement events = db.prepare(
        "INSERT INTO agent_events (run_id, seq, at, turn, kind, tool, payload_json, "
        "evaluation_id) VALUES (2, 3, 't', 4, 'submission', 'submit', '{}', ?1), "
        "(2, 1, 't', 1, 'submission', 'submit', '{}', ?1), "
        "(2, 2, 't', 2, 'submission', 'submit', '{}', NULL), "
        "(2, 4, 't', 4, 'tool_result', 'submit', '{}', ?1), "
        "(1, 1, 't', 0, 'submission', 'submit', '{}', ?1)");
    events.bind_int(1, evaluation_);
    events.step();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path path() const { return dir_ / "store.sqlite"; }

  std::filesystem::path dir_;
  int64_t evaluation_ = 0;
};

TEST_F(AgentStoreQueryTest, RunsOldestFirstWithNullsAbsent) {
  const AgentStore rows = Store::open(path()).agent_runs();
  const auto runs = rows.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, 2);  // created first, inserted second
  EXPECT_EQ(runs[0].task_id, "alpha");
  EXPECT_EQ(runs[0].turn_budget, 5);
  EXPECT_EQ(runs[0].status, "failed");
  EXPECT_EQ(runs[0].prompt_tokens, 10);
  EXPECT_EQ(runs[0].cost_usd, 0.5);
  EXPECT_EQ(runs[0].final_evaluation_id, evaluation_);
  EXPECT_FALSE(runs[0].baseline_evaluation_id);
  EXPECT_FALSE(runs[1].prompt_tokens);
  EXPECT_FALSE(runs[1].cost_usd);
  EXPECT_FALSE(runs[1].final_evaluation_id);
}

TEST_F(AgentStoreQueryTest, QueryMatchesEveryGivenList) {
  const AgentStore rows = Store::open(path()).agent_runs();
  EXPECT_EQ(rows.runs({.tasks = {"beta"}, .models = {}, .ids = {}}).at(0).id, 1);
  EXPECT_EQ(rows.runs({.tasks = {}, .models = {"m1", "m2"}, .ids = {}}).size(), 2u);
  EXPECT_TRUE(rows.runs({.tasks = {"beta"}, .models = {"m1"}, .ids = {}}).empty());
  EXPECT_EQ(rows.runs({.tasks = {}, .models = {}, .ids = {2}}).at(0).model, "m1");
}

TEST_F(AgentStoreQueryTest, SubmissionsAreScoredSubmitEventsInOrder) {
  const AgentStore rows = Store::open(path()).agent_runs();
  const auto submissions = rows.scored_submissions(2);
  ASSERT_EQ(submissions.size(), 2u);  // not the one without an evaluation, nor the tool result
  EXPECT_EQ(submissions[0].seq, 1);
  EXPECT_EQ(submissions[0].turn, 1);
  EXPECT_EQ(submissions[1].turn, 4);
  EXPECT_EQ(submissions[1].evaluation_id, evaluation_);
  EXPECT_EQ(rows.scored_submissions(1).size(), 1u);
}

}  // namespace
}  // namespace d2k::store
