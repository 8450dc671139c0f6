#include "sweep/cell_runner.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "store/store.h"
#include "sweep/fake_process_runner_test_util.h"

namespace d2k::sweep {
namespace {

namespace fs = std::filesystem;

class CellRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "d2k_cell_runner_test_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    cell_.task_id = "cpu_scale_add";
    cell_.what = "reference";
    cell_.store_kind = "reference";
    cell_.impl_hash = "abc";
    cell_.device_kind = "cpu";
    cell_.arguments = {"eval", "cpu_scale_add", "--impl", "reference"};
  }
  void TearDown() override { fs::remove_all(root_); }

  // What `d2k eval` leaves in the store it was given: one evaluation of the cell.
  static fs::path store_argument(const FakeProcessRunner::Started& process) {
    const auto it = std::find(process.argv.begin(), process.argv.end(), "--store");
    return *(it + 1);
  }
  static void store_result(const FakeProcessRunner::Started& process, const std::string& hash) {
    record::EvaluationResult result;
    result.task_id = "cpu_scale_add";
    result.impl_kind = "reference";
    result.impl_hash = hash;
    store::Store::open(store_argument(process)).evaluations().save(result);
  }

  fs::path root_;
  Cell cell_;
  FakeProcessRunner runner_;
};

TEST_F(CellRunnerTest, RenamesTheCellsStoreOnceItHoldsTheResult) {
  const WorkDir dir(root_);
  runner_.on_end = [&](const FakeProcessRunner::Started& process) {
    EXPECT_FALSE(fs::exists(dir.record(cell_)));  // never visible before it is complete
    store_result(process, "abc");
    return ProcessExit{true, 1};  // the evaluation failed: still the cell's result
  };
  const CellRunResult result = run_cell(cell_, dir, {"d2k", "--tasks", "/t"}, runner_);
  EXPECT_EQ(result.outcome, CellRun::recorded);
  ASSERT_EQ(runner_.started.size(), 1u);
  const auto& argv = runner_.started[0].argv;
  EXPECT_EQ(std::vector<std::string>(argv.begin(), argv.begin() + 3),
            (std::vector<std::string>{"d2k", "--tasks", "/t"}));
  EXPECT_EQ(std::vector<std::string>(argv.end() - 4, argv.end()), cell_.arguments);
  EXPECT_EQ(runner_.started[0].log, dir.log(cell_));
  EXPECT_TRUE(fs::exists(dir.record(cell_)));
  EXPECT_EQ(dir.records(), std::vector<fs::path>{dir.record(cell_)});
  EXPECT_FALSE(dir.failure(cell_).has_value());

  // A recorded cell is not run again.
  EXPECT_EQ(run_cell(cell_, dir, {"d2k"}, runner_).outcome, CellRun::already_recorded);
  EXPECT_EQ(runner_.started.size(), 1u);
}

TEST_F(CellRunnerTest, AKilledCellLeavesNoRecordAndSaysWhy) {
  const WorkDir dir(root_);
  runner_.on_end = [&](const FakeProcessRunner::Started& process) {
    store_result(process, "abc");  // a row written, then the process died before its end
    return ProcessExit{false, 9};
  };
  const CellRunResult result = run_cell(cell_, dir, {"d2k"}, runner_);
  EXPECT_EQ(result.outcome, CellRun::failed);
  EXPECT_EQ(result.reason, "d2k killed by signal 9 (Killed)");
  EXPECT_TRUE(dir.records().empty());
  EXPECT_TRUE(fs::is_empty(root_ / "records"));  // the temporary store is gone too
  ASSERT_TRUE(dir.failure(cell_).has_value());
  EXPECT_EQ(dir.failure(cell_)->reason, result.reason);
  EXPECT_EQ(dir.failure(cell_)->log, dir.log(cell_).string());
}

TEST_F(CellRunnerTest, AStoreWithoutTheCellsResultIsNoRecord) {
  const WorkDir dir(root_);
  runner_.on_end = [&](const FakeProcessRunner::Started& process) {
    store_result(process, "another file");
    return ProcessExit{true, 0};
  };
  EXPECT_EQ(run_cell(cell_, dir, {"d2k"}, runner_).reason,
            "d2k exited with status 0 without storing the cell's result");
  EXPECT_TRUE(dir.records().empty());
  runner_.on_end = [](const FakeProcessRunner::Started&) { return ProcessExit{true, 2}; };
  EXPECT_EQ(run_cell(cell_, dir, {"d2k"}, runner_).reason, "d2k exited with status 2");
}

TEST_F(CellRunnerTest, LeavesACellLockedElsewhereAlone) {
  const WorkDir dir(root_);
  const CellLock held(dir.lock(cell_));
  ASSERT_TRUE(held.held());
  EXPECT_TRUE(locked_elsewhere(dir.lock(cell_)));
  EXPECT_EQ(run_cell(cell_, dir, {"d2k"}, runner_).outcome, CellRun::running_elsewhere);
  EXPECT_TRUE(runner_.started.empty());
}

TEST_F(CellRunnerTest, RemovesWhatAKilledAttemptLeft) {
  const WorkDir dir(root_);
  std::ofstream(root_ / "records" / (cell_.file_stem() + ".sqlite.tmp-otherhost-42")) << "partial";
  runner_.on_end = [&](const FakeProcessRunner::Started& process) {
    store_result(process, "abc");
    return ProcessExit{true, 0};
  };
  EXPECT_EQ(run_cell(cell_, dir, {"d2k"}, runner_).outcome, CellRun::recorded);
  EXPECT_EQ(std::distance(fs::directory_iterator(root_ / "records"), fs::directory_iterator()), 1);
}

TEST_F(CellRunnerTest, ACellTravelsToItsWorkerAsJson) {
  const WorkDir dir(root_);
  cell_.gpus = 2;
  cell_.time_limit_seconds = 90.5;
  const Cell back = read_cell(dir.write_cell(cell_));
  EXPECT_EQ(back.key(), cell_.key());
  EXPECT_EQ(back.arguments, cell_.arguments);
  EXPECT_EQ(back.gpus, 2);
  EXPECT_EQ(back.time_limit_seconds, 90.5);
  EXPECT_EQ(back.store_kind, "reference");
}

}  // namespace
}  // namespace d2k::sweep
