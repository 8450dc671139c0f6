#include "sweep/expansion.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <set>

#include "sweep/plan_error.h"
#include "task/task_loader.h"
#include "util/hash.h"

namespace d2k::sweep {
namespace {

namespace fs = std::filesystem;

const fs::path kTasks = fs::path(D2K_TEST_FIXTURES) / "tasks";

RunSpec run_of(RunKind kind) {
  RunSpec run;
  run.kind = kind;
  return run;
}

class ExpansionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* id : {"cpu_scale_add", "cpu_ema_state", "gpu_scale_add"}) {
      tasks_.push_back(task::load_task(kTasks / id));
    }
    tasks_[0].category = task::Category::quantization_training_structural;
    tasks_[2].category = task::Category::moe_distributed;
    plan_.file = "/plans/grid.yaml";
    plan_.work_dir = "/plans/grid.sweep";
  }

  std::vector<task::Task> tasks_;
  Plan plan_;
};

std::vector<std::string> keys(const Expansion& expansion) {
  std::vector<std::string> keys;
  for (const Cell& cell : expansion.cells) keys.push_back(cell.key());
  return keys;
}

TEST_F(ExpansionTest, OneCellPerTaskRunDeviceAndRepeat) {
  plan_.task_ids = {"cpu_scale_add", "gpu_scale_add"};
  plan_.runs = {run_of(RunKind::reference), run_of(RunKind::baseline)};
  plan_.repeats = 2;
  plan_.devices = {"H200", "B200"};
  const Expansion expansion = expand(plan_, tasks_, Ledger());
  // The CPU task runs on the CPU only; the CUDA task on each device.
  ASSERT_EQ(expansion.cells.size(), 2u * 2u + 2u * 2u * 2u);
  const std::vector<std::string> all = keys(expansion);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), all.size());
  const Cell& first = expansion.cells.front();
  const std::string hash = util::hash_file(kTasks / "cpu_scale_add" / "reference.py");
  EXPECT_EQ(first.key(), "cpu_scale_add|reference||r0|cpu|" + hash);
  EXPECT_EQ(first.arguments, (std::vector<std::string>{"eval", "cpu_scale_add", "--impl", "reference"}));
  EXPECT_EQ(first.gpus, 0);
  const Cell& gpu = expansion.cells.back();
  EXPECT_EQ(gpu.key(), "gpu_scale_add|baseline||r1|B200|" +
                           util::hash_file(kTasks / "gpu_scale_add" / "baseline" / "solution.py"));
  EXPECT_EQ(gpu.gpus, 1);
  // Two timed workloads, each for the candidate and for the reference, plus start-up slack.
  EXPECT_DOUBLE_EQ(gpu.time_limit_seconds,
                   2.0 * 2.0 * tasks_[2].evaluation.workload_timeout_seconds + 300.0);
  EXPECT_NE(first.file_stem(), expansion.cells[1].file_stem());
}

TEST_F(ExpansionTest, SelectsByCategoryAndNotesWhatATaskLacks) {
  plan_.categories = {task::Category::quantization_training_structural};
  plan_.runs = {run_of(RunKind::expert), run_of(RunKind::anchor)};
  const Expansion expansion = expand(plan_, tasks_, Ledger());
  // The fixture has anchors (one cell each) but no expert.
  EXPECT_EQ(expansion.cells.size(), 4u);
  for (const Cell& cell : expansion.cells) EXPECT_EQ(cell.arguments[3].rfind("anchor:", 0), 0u);
  EXPECT_EQ(expansion.notes, (std::vector<std::string>{"cpu_scale_add has no expert"}));
}

TEST_F(ExpansionTest, AnUnknownTaskIsAPlanError) {
  plan_.task_ids = {"no_such_task"};
  plan_.runs = {run_of(RunKind::reference)};
  EXPECT_THROW(expand(plan_, tasks_, Ledger()), PlanError);
}

TEST_F(ExpansionTest, AgentCellsCarryTheirConfigurationAndWorkspace) {
  plan_.task_ids = {"cpu_scale_add"};
  RunSpec agent = run_of(RunKind::agent);
  agent.agent = {"claude", "opus", {"none", "L1"}, 50, 600.0};
  plan_.runs = {agent};
  const Expansion expansion = expand(plan_, tasks_, Ledger());
  ASSERT_EQ(expansion.cells.size(), 2u);
  const Cell& cell = expansion.cells[1];
  EXPECT_EQ(cell.kind, CellKind::agent_run);
  EXPECT_EQ(cell.configuration, "L1 claude opus");
  EXPECT_EQ(cell.arguments,
            (std::vector<std::string>{"agent", "run", "cpu_scale_add", "--config", "L1", "--agent",
                                      "claude", "--workspace",
                                      "/plans/grid.sweep/workspaces/" + cell.file_stem(), "--model",
                                      "opus", "--budget", "50", "--timeout", "600"}));
  EXPECT_DOUBLE_EQ(cell.time_limit_seconds, 900.0);
}

TEST_F(ExpansionTest, JudgeCellsComeFromTheStoredRunsOfThePlansAgentCells) {
  plan_.task_ids = {"cpu_scale_add"};
  RunSpec agent = run_of(RunKind::agent);
  agent.agent = {"claude", "", {"L1"}, 0, 0.0};
  RunSpec judge = run_of(RunKind::judge);
  judge.judge.model = "qwen";
  plan_.runs = {agent, judge};
  EXPECT_EQ(expand(plan_, tasks_, Ledger()).cells.size(), 1u);  // nothing to judge yet

  store::EvaluationSummary final;
  final.id = 7;
  final.impl_path = (kTasks / "cpu_scale_add" / "solution.py").string();
  final.impl_hash = "feed";
  final.passed = true;
  store::AgentRun run;
  run.task_id = "cpu_scale_add";
  run.config = "L1";
  run.agent = "claude";
  run.status = "finished";
  run.final_evaluation_id = 7;
  store::AgentRun failed = run;
  failed.status = "failed";
  const Ledger ledger({final}, {run, failed}, {});
  const Expansion expansion = expand(plan_, tasks_, ledger);
  ASSERT_EQ(expansion.cells.size(), 2u);
  const Cell& cell = expansion.cells[1];
  EXPECT_EQ(cell.kind, CellKind::judge_assessment);
  EXPECT_EQ(cell.impl_hash, "feed");
  EXPECT_EQ(cell.arguments, (std::vector<std::string>{"judge", "impl", "cpu_scale_add", "--solution",
                                                      final.impl_path, "--correct", "--model", "qwen"}));
  EXPECT_TRUE(ledger.done(expansion.cells[0]));  // the finished run; the failed one does not count
  EXPECT_FALSE(ledger.done(cell));
  record::JudgeAssessment assessment;
  assessment.task_id = "cpu_scale_add";
  assessment.kind = record::JudgeKind::impl;
  assessment.candidate_hash = "feed";
  assessment.model = "qwen";
  EXPECT_TRUE(Ledger({final}, {run}, {assessment}).done(cell));
}

TEST(LedgerTest, TheNthMatchingEvaluationStandsForRepeatN) {
  Cell cell;
  cell.task_id = "t";
  cell.store_kind = "expert";
  cell.impl_hash = "abc";
  cell.device_kind = "H200";
  store::EvaluationSummary match;
  match.task_id = "t";
  match.impl_kind = "expert";
  match.impl_hash = "abc";
  match.device_name = "NVIDIA H200";
  store::EvaluationSummary other_device = match;
  other_device.device_name = "NVIDIA B200";
  store::EvaluationSummary other_file = match;
  other_file.impl_hash = "abd";
  const Ledger ledger({match, other_device, other_file}, {}, {});
  EXPECT_EQ(ledger.count(cell), 1);
  EXPECT_TRUE(ledger.done(cell));
  cell.repeat = 1;
  EXPECT_FALSE(ledger.done(cell));
  EXPECT_TRUE(device_matches("h200", "NVIDIA H200"));
  EXPECT_TRUE(device_matches("any", "NVIDIA B200"));
  EXPECT_FALSE(device_matches("H100", "NVIDIA H200"));
}

}  // namespace
}  // namespace d2k::sweep

namespace d2k::sweep {
namespace {

// The plans in sweeps/ load and expand against the repository's tasks.
TEST(RepositoryPlansTest, TheH200ExpertGridCoversEveryTaskWithAnExpert) {
  const fs::path root = fs::path(D2K_SOURCE_DIR);
  std::vector<task::Task> tasks;
  for (const fs::path& dir : task::find_task_dirs(root / "tasks")) tasks.push_back(task::load_task(dir));
  const Plan plan = load_plan(root / "sweeps" / "h200-experts.yaml");
  const Expansion expansion = expand(plan, tasks, Ledger());
  size_t with_expert = 0;
  for (const task::Task& task : tasks) {
    if (fs::exists(task.implementation_file(task::ImplKind::expert))) ++with_expert;
  }
  ASSERT_GT(with_expert, 0u);
  EXPECT_EQ(expansion.cells.size(), 3 * with_expert);
  for (const Cell& cell : expansion.cells) {
    EXPECT_EQ(cell.device_kind, cell.gpus > 0 ? "H200" : "cpu") << cell.key();
  }
}

}  // namespace
}  // namespace d2k::sweep
