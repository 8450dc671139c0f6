#include "sweep/sweep.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "store/store.h"
#include "sweep/fake_process_runner_test_util.h"
#include "task/task_loader.h"

namespace d2k::sweep {
namespace {

namespace fs = std::filesystem;

// A plan over a CPU fixture task, run by the local executor on workers the fake runner plays.
class SweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "d2k_sweep_test_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    std::ofstream(dir_ / "plan.yaml")
        << "tasks: [cpu_scale_add]\nruns: [reference, baseline]\nrepeats: 2\n"
           "executor: {kind: local, cpu_workers: 2, retries: 1}\n";
    tasks_.push_back(task::load_task(fs::path(D2K_TEST_FIXTURES) / "tasks" / "cpu_scale_add"));
    // A worker that succeeds stores the cell's evaluation and renames it into place.
    runner_.on_end = [this](const FakeProcessRunner::Started& process) {
      const Cell cell = read_cell(process.argv.back());
      if (fail_next_ > 0) {
        --fail_next_;
        return ProcessExit{false, 9};
      }
      record::EvaluationResult result;
      result.created_at = "2026-12-02T10:00:0" + std::to_string(++saved_) + "Z";
      result.task_id = cell.task_id;
      result.impl_kind = cell.store_kind;
      result.impl_hash = cell.impl_hash;
      result.base_seed = static_cast<uint64_t>(saved_);
      const fs::path temp = dir_ / "temp.sqlite";
      store::Store::open(temp).evaluations().save(result);
      fs::rename(temp, dir_ / "plan.sweep" / "records" / (cell.file_stem() + ".sqlite"));
      return ProcessExit{true, 0};
    };
  }
  void TearDown() override { fs::remove_all(dir_); }

  Sweep sweep() {
    return Sweep(load_plan(dir_ / "plan.yaml"), tasks_, dir_ / "store.sqlite", {"d2k"}, runner_,
                 [this](const std::string& line) { said_.push_back(line); });
  }

  size_t stored() const {
    store::Query all;
    all.limit = 0;
    return store::Store::open(dir_ / "store.sqlite").evaluations().list(all).size();
  }

  fs::path dir_;
  std::vector<task::Task> tasks_;
  FakeProcessRunner runner_;
  std::vector<std::string> said_;
  int saved_ = 0;
  int fail_next_ = 0;
};

TEST_F(SweepTest, RunsEveryCellOnceAndSkipsThemAfterwards) {
  Status before = sweep().status();
  EXPECT_EQ(before.cells.size(), 4u);
  EXPECT_EQ(before.count(CellState::left), 4);

  const Status after = sweep().run({});
  EXPECT_EQ(after.count(CellState::done), 4);
  EXPECT_EQ(runner_.started.size(), 4u);
  EXPECT_EQ(stored(), 4u);

  const Status again = sweep().run({});
  EXPECT_EQ(again.count(CellState::done), 4);
  EXPECT_EQ(runner_.started.size(), 4u);  // nothing ran
  EXPECT_EQ(stored(), 4u);                // and nothing was imported twice
}

TEST_F(SweepTest, AFailedCellIsRetriedAndReportedWithItsLog) {
  fail_next_ = 1;
  const Status after = sweep().run({});
  EXPECT_EQ(after.count(CellState::done), 4);
  EXPECT_EQ(runner_.started.size(), 5u);
  EXPECT_EQ(stored(), 4u);
  const auto failed = std::find_if(said_.begin(), said_.end(), [](const std::string& line) {
    return line.find("failed") != std::string::npos;
  });
  ASSERT_NE(failed, said_.end());
  EXPECT_NE(failed->find("killed by signal 9"), std::string::npos) << *failed;
  EXPECT_NE(failed->find("log: " + (dir_ / "plan.sweep" / "logs").string()), std::string::npos);
}

TEST_F(SweepTest, ACellThatKeepsFailingIsLeftFailedAfterItsRetries) {
  fail_next_ = 100;
  const Status after = sweep().run({});
  EXPECT_EQ(after.count(CellState::failed), 4);
  EXPECT_EQ(runner_.started.size(), 8u);  // each cell twice: once and one retry
  ASSERT_TRUE(after.cells[0].failure.has_value());
  EXPECT_EQ(after.cells[0].failure->reason, "killed by signal 9 (Killed)");
}

TEST_F(SweepTest, RecordsLeftByAnEarlierSweepAreImportedNotRun) {
  sweep().run({});
  fs::remove(dir_ / "store.sqlite");  // as if the sweep died before importing them
  const Status status = sweep().status();
  EXPECT_EQ(status.count(CellState::done), 4);
  EXPECT_EQ(stored(), 4u);
}

TEST_F(SweepTest, RunsOnlyTheCellAsked) {
  const std::string key = sweep().status().cells[2].cell.key();  // the baseline's repeat 0
  RunOptions options;
  options.only_key = key;
  const Status after = sweep().run(options);
  EXPECT_EQ(runner_.started.size(), 1u);
  EXPECT_EQ(after.count(CellState::done), 1);
  EXPECT_EQ(after.cells[2].state, CellState::done);
}

}  // namespace
}  // namespace d2k::sweep
