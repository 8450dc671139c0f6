#include "store/store_import.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "store/agent_store.h"
#include "store/store.h"

namespace d2k::store {
namespace {

namespace fs = std::filesystem;

class StoreImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "d2k_store_import_test_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static record::EvaluationResult evaluation(const std::string& kind, uint64_t seed) {
    record::EvaluationResult result;
    result.created_at = "2026-12-01T10:00:00Z";
    result.task_id = "cpu_scale_add";
    result.impl_kind = kind;
    result.impl_path = "/tasks/cpu_scale_add/" + kind + ".py";
    result.impl_hash = "00000000000000ab";
    result.device = "cpu";
    result.base_seed = seed;
    result.environment.device_name = "test cpu";
    record::WorkloadResult workload;
    workload.workload = "small";
    workload.verdict = record::Verdict::passed;
    workload.reason_code = "ok";
    result.workloads.push_back(workload);
    return result;
  }

  // A cell's store: two evaluations, an agent run with events pointing at one, an assessment.
  fs::path cell_store(const std::string& name) {
    const fs::path path = dir_ / name;
    Store store = Store::open(path);
    record::EvaluationResult reference = evaluation("reference", 1);
    store.evaluations().save(reference);
    record::EvaluationResult solution = evaluation("solution", 2);
    const int64_t solution_id = store.evaluations().save(solution);
    AgentStore agents = Store::open(path).agent_runs();
    AgentRun run;
    run.created_at = "2026-12-01T09:00:00Z";
    run.task_id = "cpu_scale_add";
    run.config = "L1";
    run.agent = "claude";
    run.workspace = "/ws/1";
    run.turn_budget = 10;
    run.turn_source = "tool_calls";
    run.status = "finished";
    run.final_evaluation_id = solution_id;
    agents.create_run(run);
    for (int i = 0; i < 3; ++i) {
      AgentEvent event;
      event.run_id = run.id;
      event.kind = i == 2 ? "evaluation" : "call";
      event.tool = "submit";
      event.payload = {{"i", i}};
      if (i == 2) event.evaluation_id = solution_id;
      agents.append_event(event);
    }
    record::JudgeAssessment assessment;
    assessment.created_at = "2026-12-01T11:00:00Z";
    assessment.task_id = "cpu_scale_add";
    assessment.candidate_hash = "00000000000000ab";
    assessment.model = "judge-model";
    assessment.status = record::JudgeStatus::verified;
    store.judge_assessments().save(assessment);
    return path;
  }

  fs::path dir_;
};

TEST_F(StoreImportTest, ImportsEveryRowOnceWithItsLinks) {
  const fs::path source = cell_store("cell.sqlite");
  const fs::path destination = dir_ / "main.sqlite";
  // Something already in the destination, so that the imported ids differ from the source's.
  record::EvaluationResult other = evaluation("baseline", 9);
  Store::open(destination).evaluations().save(other);

  const ImportReport first = import_store(source, destination);
  EXPECT_EQ(first.evaluations_added, 2);
  EXPECT_EQ(first.runs_added, 1);
  EXPECT_EQ(first.events_added, 3);
  EXPECT_EQ(first.assessments_added, 1);
  EXPECT_TRUE(first.conflicts.empty());

  const ImportReport second = import_store(source, destination);
  EXPECT_EQ(second.evaluations_added, 0);
  EXPECT_EQ(second.evaluations_present, 2);
  EXPECT_EQ(second.runs_added, 0);
  EXPECT_EQ(second.runs_present, 1);
  EXPECT_EQ(second.events_added, 0);
  EXPECT_EQ(second.assessments_present, 1);
  EXPECT_TRUE(second.conflicts.empty());

  Store store = Store::open(destination);
  Query all;
  all.limit = 0;
  EXPECT_EQ(store.evaluations().list(all).size(), 3u);
  JudgeQuery judged;
  judged.limit = 0;
  EXPECT_EQ(store.judge_assessments().list(judged).size(), 1u);
  AgentStore agents = Store::open(destination).agent_runs();
  const std::vector<AgentRun> runs = agents.runs();
  ASSERT_EQ(runs.size(), 1u);
  // The run and its evaluation event point at the imported solution, not at the source's id.
  ASSERT_TRUE(runs[0].final_evaluation_id.has_value());
  const auto final = store.evaluations().load(*runs[0].final_evaluation_id);
  ASSERT_TRUE(final.has_value());
  EXPECT_EQ(final->impl_kind, "solution");
  const auto events = agents.events(runs[0].id);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2].evaluation_id, runs[0].final_evaluation_id);
  EXPECT_EQ(events[1].payload, nlohmann::json({{"i", 1}}));
}

TEST_F(StoreImportTest, ReportsARowStoredWithOtherContents) {
  const fs::path destination = dir_ / "main.sqlite";
  record::EvaluationResult stored = evaluation("reference", 1);
  Store::open(destination).evaluations().save(stored);
  record::EvaluationResult changed = evaluation("reference", 1);
  changed.workloads[0].verdict = record::Verdict::incorrect;
  Store::open(dir_ / "other.sqlite").evaluations().save(changed);

  const ImportReport report = import_store(dir_ / "other.sqlite", destination);
  EXPECT_EQ(report.evaluations_added, 0);
  ASSERT_EQ(report.conflicts.size(), 1u);
  EXPECT_NE(report.conflicts[0].find("kept the stored row"), std::string::npos);
  const auto kept = Store::open(destination).evaluations().load(stored.id);
  EXPECT_EQ(kept->workloads[0].verdict, record::Verdict::passed);
}

TEST_F(StoreImportTest, AnotherSeedIsAnotherEvaluation) {
  const fs::path destination = dir_ / "main.sqlite";
  record::EvaluationResult first = evaluation("reference", 1);
  Store::open(destination).evaluations().save(first);
  record::EvaluationResult second = evaluation("reference", 2);
  Store::open(dir_ / "other.sqlite").evaluations().save(second);
  EXPECT_EQ(import_store(dir_ / "other.sqlite", destination).evaluations_added, 1);
}

TEST_F(StoreImportTest, FinishesARunWhoseEventsWereCutShort) {
  const fs::path source = cell_store("cell.sqlite");
  const fs::path destination = dir_ / "main.sqlite";
  import_store(source, destination);
  AgentStore source_agents = Store::open(source).agent_runs();
  AgentEvent late;
  late.run_id = source_agents.runs()[0].id;
  late.kind = "agent";
  source_agents.append_event(late);
  const ImportReport report = import_store(source, destination);
  EXPECT_EQ(report.events_added, 1);
  EXPECT_EQ(Store::open(destination).agent_runs().events(Store::open(destination).agent_runs().runs()[0].id).size(),
            4u);
}

TEST_F(StoreImportTest, RefusesAMissingSourceAndItself) {
  EXPECT_THROW(import_store(dir_ / "absent.sqlite", dir_ / "main.sqlite"), StoreError);
  const fs::path source = cell_store("cell.sqlite");
  EXPECT_THROW(import_store(source, source), StoreError);
}

}  // namespace
}  // namespace d2k::store
