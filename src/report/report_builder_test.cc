#include "report/report_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "report/report_fixture_test_util.h"

namespace d2k::report {
namespace {

using testing::FixtureStore;
using testing::ScratchDir;

constexpr double kTol = 1e-9;
// Rows are (client, model, configuration); the fixture's runs all come from one client.
const std::string kModelOne = "fixture-agent / m-one";
const std::string kModelTwo = "fixture-agent / m-two";

class ReportBuilderTest : public ::testing::Test {
 protected:
  ReportBuilderTest() : fixture_(dir_.path() / "store.sqlite") {}

  Report build(const ReportFilter& filter = {}) {
    const store::AgentStore agents = store::Store::open(fixture_.path()).agent_runs();
    return build_report(fixture_.store(), agents, filter);
  }

  ScratchDir dir_;
  FixtureStore fixture_;
};

const ScoreRow& score_row(const Report& report, const std::string& name,
                          const std::string& config) {
  for (const auto& row : report.table1.rows) {
    if (row.implementation == name && row.config == config) return row;
  }
  for (const auto& row : report.table1.overall) {
    if (row.implementation == name && row.config == config) return row;
  }
  throw std::runtime_error("no Table 1 row " + name + " " + config);
}

bool mentions(const std::vector<Missing>& missing, const std::string& what,
              const std::string& command) {
  for (const auto& m : missing) {
    if (m.what.find(what) != std::string::npos && m.command.find(command) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST_F(ReportBuilderTest, EmptyStoreSaysWhatIsMissingEverywhere) {
  const Report report = build();
  EXPECT_TRUE(report.tasks.empty());
  EXPECT_TRUE(mentions(report.missing, "no evaluations", "d2k eval"));
  EXPECT_TRUE(report.table1.rows.empty());
  EXPECT_TRUE(report.task_views.empty());
}

TEST_F(ReportBuilderTest, OnlyFixedImplementationsWithoutAgentRuns) {
  fixture_.evaluation("alpha", "reference", {{"a1", 4.0}});
  fixture_.evaluation("alpha", "baseline", {{"a1", 2.0}});
  fixture_.evaluation("alpha", "solution", {{"a1", 1.0}});
  fixture_.evaluation("beta", "reference", {{"b1", 3.0}});  // no baseline: left out
  const Report report = build();
  ASSERT_EQ(report.tasks, std::vector<std::string>{"alpha"});
  EXPECT_TRUE(mentions(report.missing, "task beta has no passed baseline",
                       "d2k eval beta --impl baseline"));
  ASSERT_EQ(report.table1.rows.size(), 3u);
  EXPECT_NEAR(*score_row(report, "PyTorch reference", "").sperf, 0.5, kTol);
  EXPECT_NEAR(*score_row(report, "Baseline", "").sperf, 1.0, kTol);
  const ScoreRow& expert = score_row(report, "Expert", "");
  EXPECT_EQ(expert.tasks_without_run, std::vector<std::string>{"alpha"});
  EXPECT_NEAR(*expert.sperf, 0.5, kTol);  // counted as failed, and said so
  EXPECT_TRUE(mentions(report.table1.missing, "no expert", "d2k eval alpha --impl expert"));
  EXPECT_TRUE(mentions(report.table1.missing, "no agent runs", "d2k agent run"));
  EXPECT_TRUE(mentions(report.table2.missing, "no agent runs", "d2k agent run"));
  EXPECT_TRUE(mentions(report.table2.design_missing, "no designs", "--config design"));
  EXPECT_TRUE(mentions(report.table5.missing, "no agent runs", "d2k agent run"));
  EXPECT_TRUE(mentions(report.table6.missing, "no agent runs", "d2k agent run"));
  EXPECT_TRUE(mentions(report.figure3.missing, "no passed expert", "--impl expert"));
  EXPECT_TRUE(mentions(report.figure4.missing, "no agent runs", "d2k agent run"));
  ASSERT_EQ(report.task_views.size(), 1u);
  const TaskView& alpha = report.task_views[0];
  ASSERT_EQ(alpha.implementations.size(), 3u);
  EXPECT_EQ(alpha.implementations[2].label, "solution");
  EXPECT_NEAR(*alpha.implementations[2].latency_s[0], 1e-3, kTol);
  EXPECT_TRUE(mentions(alpha.missing, "no SOL", "d2k doctor"));
  EXPECT_TRUE(mentions(alpha.missing, "no passed expert", "d2k eval alpha --impl expert"));
}

class PaperFixtureTest : public ReportBuilderTest {
 protected:
  PaperFixtureTest() { testing::fill_paper_fixture(fixture_); }
};

TEST_F(PaperFixtureTest, Table1ScoresEveryImplementationAgainstTheBaseline) {
  const Report report = build();
  EXPECT_EQ(report.tasks, (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_NEAR(*score_row(report, "PyTorch reference", "").sperf, 0.5, kTol);
  EXPECT_NEAR(*score_row(report, "Baseline", "").sperf, 1.0, kTol);
  EXPECT_NEAR(*score_row(report, "Expert", "").sperf, 2.0, kTol);  // GM(4, 1)

  const ScoreRow& unguided = score_row(report, kModelOne, "none");  // the newer alpha run
  EXPECT_EQ(unguided.correct, 1);
  EXPECT_EQ(unguided.tasks, 2);
  EXPECT_NEAR(*unguided.sperf, 1.0, kTol);  // GM(2, 0.5)
  const ScoreRow& guided = score_row(report, kModelOne, "L1+L2+L3");
  EXPECT_EQ(guided.correct, 2);
  EXPECT_NEAR(*guided.sperf, std::sqrt(8.0), kTol);  // GM(4, 2)
  const ScoreRow& two = score_row(report, kModelTwo, "none");
  EXPECT_EQ(two.tasks_without_run, std::vector<std::string>{"beta"});
  EXPECT_NEAR(*two.sperf, std::sqrt(0.5), kTol);  // GM(1, 0.5)

  const ScoreRow& overall = score_row(report, "Overall", "none");
  EXPECT_EQ(overall.correct, 2);
  EXPECT_EQ(overall.tasks, 4);
  EXPECT_NEAR(*overall.sperf, std::sqrt(std::sqrt(0.5)), kTol);  // GM(1, 0.707)
  ASSERT_EQ(report.table1.overall.size(), 2u);
  EXPECT_EQ(report.table1.overall[1].config, "L1+L2+L3");
  for (const auto& row : report.table1.rows) EXPECT_NE(row.config, "design");
}

TEST_F(PaperFixtureTest, Table2JudgesFinalSubmissionsAndDesigns) {
  const Report report = build();
  ASSERT_EQ(report.table2.design.size(), 2u);
  const DesignRow& one = report.table2.design[0];
  EXPECT_EQ(one.model, kModelOne);
  ASSERT_TRUE(one.levels);
  EXPECT_NEAR((*one.levels)[0], 60, kTol);  // the unverified zeros for beta do not count
  EXPECT_NEAR((*one.levels)[1], 50, kTol);
  EXPECT_NEAR((*one.levels)[2], 40, kTol);
  EXPECT_NEAR(*one.js_design, 50, kTol);
  EXPECT_FALSE(report.table2.design[1].levels);
  EXPECT_TRUE(
      mentions(report.table2.design_missing, kModelTwo + ": 2 of 2 tasks", "--config design"));

  ASSERT_EQ(report.table2.impl.size(), 5u);  // three runs' groups and two averages
  const ImplRow& unguided = report.table2.impl[0];
  EXPECT_EQ(unguided.config, "none");
  ASSERT_TRUE(unguided.levels);  // beta failed, so it counts 0 without a judge row
  EXPECT_NEAR((*unguided.levels)[0], 30, kTol);
  EXPECT_NEAR((*unguided.levels)[1], 15, kTol);
  EXPECT_NEAR(*unguided.js_impl, 20, kTol);
  EXPECT_NEAR(*unguided.sperf, 1.0, kTol);
  const ImplRow& guided = report.table2.impl[1];
  EXPECT_NEAR((*guided.levels)[0], 85, kTol);
  EXPECT_NEAR((*guided.levels)[2], 55, kTol);
  EXPECT_NEAR(*guided.js_impl, 70, kTol);
  const ImplRow& two = report.table2.impl[2];
  EXPECT_EQ(two.model, kModelTwo);
  EXPECT_FALSE(two.levels);
  EXPECT_EQ(two.tasks_without_assessment, std::vector<std::string>{"alpha"});
  EXPECT_TRUE(mentions(report.table2.missing, kModelTwo + " (none)'s final submission for alpha",
                       "d2k judge impl alpha --solution"));
  const ImplRow& average_none = report.table2.impl[3];
  EXPECT_EQ(average_none.model, "Average");
  EXPECT_FALSE(average_none.levels);  // m-two is not judged
  EXPECT_NEAR(*average_none.sperf, std::sqrt(std::sqrt(0.5)), kTol);
  EXPECT_NEAR(*report.table2.impl[4].js_impl, 70, kTol);
}

TEST_F(PaperFixtureTest, Tables4And5CountOnlyCorrectFastTasks) {
  const Report report = build();
  ASSERT_EQ(report.table4.rows.size(), 2u);
  EXPECT_EQ(report.table4.rows[0].implementation, kModelOne);
  EXPECT_EQ(report.table4.rows[0].config, "L1+L2+L3");
  EXPECT_NEAR(report.table4.rows[0].speedup, std::sqrt(8.0), kTol);
  EXPECT_EQ(report.table4.rows[1].implementation, "Expert");
  EXPECT_NEAR(report.table4.rows[1].speedup, 2.0, kTol);
  EXPECT_EQ(report.table4.not_fully_correct,
            (std::vector<std::string>{kModelOne + " (none)", kModelTwo + " (none)"}));

  ASSERT_EQ(report.table5.rows.size(), 5u);
  const auto fast = [&](size_t row) { return report.table5.rows[row].fast; };
  EXPECT_EQ(fast(0), (std::array<double, 3>{0.5, 0.5, 0.0}));  // alpha at 2.0 is not > 2
  EXPECT_EQ(fast(1), (std::array<double, 3>{1.0, 1.0, 0.5}));  // beta at exactly 2
  EXPECT_EQ(fast(2), (std::array<double, 3>{0.0, 0.0, 0.0}));  // alpha at exactly 1
  EXPECT_EQ(report.table5.rows[3].implementation, "Overall");
  EXPECT_EQ(fast(3), (std::array<double, 3>{0.25, 0.25, 0.0}));
}

TEST_F(PaperFixtureTest, Table6SumsTheRunsTheReportReads) {
  const Report report = build();
  ASSERT_EQ(report.table6.rows.size(), 6u);
  const UsageRow& unguided = report.table6.rows[0];
  EXPECT_EQ(unguided.runs, 2);  // the superseded alpha run is not counted
  EXPECT_EQ(unguided.prompt_tokens, 4000);
  EXPECT_EQ(unguided.completion_tokens, 600);
  EXPECT_NEAR(unguided.cost_usd, 3.75, kTol);
  EXPECT_EQ(report.table6.rows[1].runs_without_usage, 1);
  const UsageRow& total = report.table6.rows[3];
  EXPECT_EQ(total.config, "total");
  EXPECT_EQ(total.runs, 6);
  EXPECT_EQ(total.prompt_tokens, 9200);
  EXPECT_NEAR(total.cost_usd, 8.95, kTol);
  EXPECT_TRUE(
      mentions(report.table6.missing, "1 of 2 runs of " + kModelOne + " (L1+L2+L3)", "d2k agent run"));
}

TEST_F(PaperFixtureTest, Figures3And4) {
  const Report report = build();
  ASSERT_EQ(report.figure3.bars.size(), 3u);
  EXPECT_NEAR(report.figure3.bars[0].percent, 50.0, 1e-7);
  EXPECT_NEAR(report.figure3.bars[1].percent, 100.0 * std::sqrt(2.0), 1e-7);
  EXPECT_NEAR(report.figure3.bars[2].percent, 100.0 * std::sqrt(0.125), 1e-7);

  ASSERT_EQ(report.figure4.series.size(), 1u);
  const auto& curve = report.figure4.series[0].sperf_by_turn;
  ASSERT_EQ(curve.size(), 5u);  // turns 0..4, the budget
  EXPECT_NEAR(curve[0], 0.1, kTol);
  EXPECT_NEAR(curve[1], 0.1, kTol);  // the turn-1 submission failed
  EXPECT_NEAR(curve[2], std::sqrt(0.2), kTol);
  EXPECT_NEAR(curve[3], std::sqrt(8.0), kTol);
  EXPECT_NEAR(curve[4], std::sqrt(8.0), kTol);
  EXPECT_TRUE(mentions(report.figure4.missing, kModelTwo + " (none)", "d2k agent run"));
}

TEST_F(PaperFixtureTest, TaskViewsShowEveryImplementationAndTheBound) {
  const Report report = build();
  ASSERT_EQ(report.task_views.size(), 2u);
  const TaskView& alpha = report.task_views[0];
  EXPECT_EQ(alpha.device, "NVIDIA H200");
  EXPECT_EQ(alpha.workloads, (std::vector<std::string>{"a1", "a2"}));
  ASSERT_TRUE(alpha.t_sol_s[0] && alpha.t_sol_s[1]);
  EXPECT_NEAR(*alpha.t_sol_s[1], 1e-3, kTol);
  std::vector<std::string> labels;
  for (const auto& i : alpha.implementations) labels.push_back(i.label);
  // The newest solution evaluation is m-two's final submission, so it is not shown twice.
  EXPECT_EQ(labels, (std::vector<std::string>{"reference", "baseline", "expert",
                                              kModelOne + " (none)", kModelOne + " (L1+L2+L3)",
                                              kModelTwo + " (none)"}));
  EXPECT_NEAR(*alpha.implementations[1].latency_s[1], 8e-3, kTol);
  EXPECT_TRUE(alpha.missing.empty());
  const TaskView& beta = report.task_views[1];
  EXPECT_FALSE(beta.t_sol_s[0]);
  EXPECT_TRUE(mentions(beta.missing, "no SOL", "d2k doctor"));
  EXPECT_FALSE(beta.implementations[3].latency_s[1]);  // m-one's failed workload
}

TEST_F(PaperFixtureTest, FiltersSelectDeviceModelsAndRuns) {
  const Report a100 = build({.tasks = {}, .models = {}, .runs = {}, .device = "NVIDIA A100"});
  EXPECT_EQ(a100.tasks, std::vector<std::string>{"alpha"});
  EXPECT_NEAR(*score_row(a100, "Baseline", "").sperf, 1.0, kTol);
  // m-one's runs were on the H200 and are scored against the H200 baseline (speedup 2).
  EXPECT_NEAR(*score_row(a100, kModelOne, "none").sperf, 2.0, kTol);

  const Report two = build({.tasks = {}, .models = {"m-two"}, .runs = {}, .device = ""});
  for (const auto& row : two.table1.rows) EXPECT_NE(row.implementation, kModelOne);
  EXPECT_NEAR(*score_row(two, kModelTwo, "none").sperf, std::sqrt(0.5), kTol);

  // Run 1 is m-one's older, failed alpha run: named, it replaces the newer one.
  const Report old_run = build({.tasks = {"alpha"}, .models = {}, .runs = {1}, .device = ""});
  EXPECT_EQ(score_row(old_run, kModelOne, "none").correct, 0);
  EXPECT_NEAR(*score_row(old_run, kModelOne, "none").sperf, 0.5, kTol);
}

TEST_F(PaperFixtureTest, RowsSeparateClientsAndLeaveOutRunsThatAreNotOver) {
  store::AgentStore agents = store::Store::open(fixture_.path()).agent_runs();
  // The same model name through another client is a row of its own; so is a client's default.
  const auto alpha_final = agents.load_run(2)->final_evaluation_id;
  const int64_t codex = fixture_.run("alpha", "none", "m-one", alpha_final, "/ws/codex", 1, 1, 0.0);
  store::AgentRun codex_run = *agents.load_run(codex);
  codex_run.agent = "codex";
  agents.update_run(codex_run);
  const int64_t unnamed = fixture_.run("alpha", "none", "", alpha_final, "/ws/unnamed", 1, 1, 0.0);
  store::AgentRun unnamed_run = *agents.load_run(unnamed);
  unnamed_run.agent = "claude";
  agents.update_run(unnamed_run);
  // Neither an open run nor one whose client never started is scored; both are named.
  for (const std::string status : {"running", "agent_unavailable"}) {
    const int64_t id = fixture_.run("beta", "none", "m-two", std::nullopt, "/ws/" + status, 1, 1, 0.0);
    store::AgentRun run = *agents.load_run(id);
    run.status = status;
    agents.update_run(run);
  }

  const Report report = build();
  EXPECT_EQ(score_row(report, "codex / m-one", "none").correct, 1);
  EXPECT_EQ(score_row(report, "claude / (default model)", "none").correct, 1);
  EXPECT_EQ(score_row(report, kModelOne, "none").correct, 1);  // its own runs, as before
  EXPECT_EQ(score_row(report, kModelTwo, "none").tasks_without_run, std::vector<std::string>{"beta"});
  EXPECT_TRUE(mentions(report.missing, "is still open (status running)", "d2k agent select"));
  EXPECT_TRUE(mentions(report.missing, "never got to work (agent_unavailable)", "d2k agent run"));
}

}  // namespace
}  // namespace d2k::report
