// `d2k sweep` with the local executor on CPU fixture tasks, killed midway with kill -9 (the
// sweep, or one cell's worker) and run again: every cell's evaluation is stored exactly once.

#include <gtest/gtest.h>

#include "sweep_run.h"

namespace d2k::e2e {
namespace {

namespace fs = std::filesystem;

class SweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(run_.dir() / "plan.yaml")
        << sweep_plan("{kind: local, cpu_workers: 1}");
  }

  std::vector<std::string> sweep(const std::string& command) const {
    return {"--tasks", (kFixtures / "tasks").string(), "--store", run_.store().string(),
            "sweep", command, (run_.dir() / "plan.yaml").string()};
  }

  fs::path work_dir() const { return run_.dir() / "plan.sweep"; }

  D2kRun run_;
};

TEST_F(SweepTest, RunsEveryCellOnceAndSkipsFinishedCellsOnTheNextRun) {
  const RunResult first = run_process(kBinary, sweep("run"), run_.dir());
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  EXPECT_TRUE(contains(first.out, "4 done, 0 running, 0 failed, 0 left")) << first.out;
  EXPECT_EQ(evaluations_per_cell(run_.store()), kOneEvaluationPerCell);

  const RunResult second = run_process(kBinary, sweep("run"), run_.dir());
  ASSERT_EQ(second.status, 0) << second.out << second.err;
  EXPECT_FALSE(contains(second.err, "running")) << second.err;
  EXPECT_EQ(evaluations_per_cell(run_.store()), kOneEvaluationPerCell);

  const RunResult status = run_process(kBinary, sweep("status"), run_.dir());
  EXPECT_EQ(status.status, 0);
  EXPECT_TRUE(contains(status.out, "plan: 4 done, 0 running, 0 failed, 0 left")) << status.out;
}

TEST_F(SweepTest, KillingTheSweepMidwayLosesAndDuplicatesNothing) {
  {
    Started sweep_run(sweep("run"), run_.dir() / "killed.log");
    ASSERT_TRUE(wait_until([&] { return records_in(work_dir()) >= 1; }, 240))
        << read_file(run_.dir() / "killed.log");
    ASSERT_LT(records_in(work_dir()), 4) << "the sweep ended before it could be killed midway";
    kill(sweep_run.pid(), SIGKILL);
    EXPECT_EQ(sweep_run.wait(), 128 + SIGKILL);
  }
  const RunResult status = run_process(kBinary, sweep("status"), run_.dir());
  EXPECT_EQ(status.status, 1) << status.out;  // not every cell is done

  const RunResult again = run_process(kBinary, sweep("run"), run_.dir());
  ASSERT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_EQ(evaluations_per_cell(run_.store()), kOneEvaluationPerCell);
  EXPECT_EQ(records_in(work_dir()), 4);
  for (const auto& entry : fs::directory_iterator(work_dir() / "records")) {
    EXPECT_EQ(entry.path().extension(), ".sqlite") << "left behind: " << entry.path();
  }
}

TEST_F(SweepTest, KillingOneCellsWorkerFailsOnlyThatCellUntilTheNextRun) {
  pid_t killed = 0;
  {
    Started sweep_run(sweep("run"), run_.dir() / "worker.log");
    ASSERT_TRUE(wait_until([&] { return !children_of(sweep_run.pid(), " sweep cell ").empty(); }, 120));
    killed = children_of(sweep_run.pid(), " sweep cell ").front();
    kill(killed, SIGKILL);
    EXPECT_EQ(sweep_run.wait(), 1) << read_file(run_.dir() / "worker.log");
  }
  const std::string log = read_file(run_.dir() / "worker.log");
  EXPECT_TRUE(contains(log, "killed by signal 9")) << log;
  EXPECT_TRUE(contains(log, "3 done, 0 running, 1 failed, 0 left")) << log;

  const RunResult status = run_process(kBinary, sweep("status"), run_.dir());
  EXPECT_TRUE(contains(status.out, "failed: ")) << status.out;

  const RunResult again = run_process(kBinary, sweep("run"), run_.dir());
  ASSERT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_TRUE(contains(again.err, "running 1 of 4 cells")) << again.err;
  EXPECT_EQ(evaluations_per_cell(run_.store()), kOneEvaluationPerCell);
}

TEST_F(SweepTest, StoreImportMergesCellRecordsOnce) {
  ASSERT_EQ(run_process(kBinary, sweep("run"), run_.dir()).status, 0);
  std::vector<std::string> import{"--store", (run_.dir() / "merged.sqlite").string(), "store",
                                  "import"};
  for (const auto& entry : fs::directory_iterator(work_dir() / "records")) {
    import.push_back(entry.path().string());
  }
  import.push_back(run_.store().string());  // the same rows again, through the sweep's store
  const RunResult merged = run_process(kBinary, import, run_.dir());
  ASSERT_EQ(merged.status, 0) << merged.out << merged.err;
  EXPECT_TRUE(contains(merged.out, "0 evaluations added (4 present)")) << merged.out;
  EXPECT_EQ(evaluations_per_cell(run_.dir() / "merged.sqlite"), kOneEvaluationPerCell);
}

}  // namespace
}  // namespace d2k::e2e
