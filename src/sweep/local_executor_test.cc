#include "sweep/local_executor.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "sweep/fake_process_runner_test_util.h"

namespace d2k::sweep {
namespace {

namespace fs = std::filesystem;

class LocalExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "d2k_local_executor_test_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_.emplace(pattern);
    unsetenv("CUDA_VISIBLE_DEVICES");
    plan_.name = "grid";
    context_.plan = &plan_;
    context_.work_dir = &*dir_;
    context_.d2k = {"d2k"};
    context_.runner = &runner_;
    context_.say = [](const std::string&) {};
  }
  void TearDown() override {
    fs::remove_all(dir_->root());
    unsetenv("CUDA_VISIBLE_DEVICES");
  }

  void two_gpus(const std::string& second = "NVIDIA H200") {
    runner_.on_run = [second](const std::vector<std::string>& argv) {
      EXPECT_EQ(argv.front(), "nvidia-smi");
      return CommandOutput{{true, 0}, "0, NVIDIA H200\n1, " + second + "\n"};
    };
  }

  static Cell cell(const std::string& task, int gpus, const std::string& device, int repeat = 0) {
    Cell cell;
    cell.task_id = task;
    cell.what = "reference";
    cell.gpus = gpus;
    cell.device_kind = device;
    cell.repeat = repeat;
    return cell;
  }

  std::vector<CellEnd> run(const std::vector<Cell>& cells) {
    std::vector<CellEnd> ends;
    LocalExecutor(context_).run(cells, [&](const CellEnd& end) { ends.push_back(end); });
    return ends;
  }

  static std::string visible(const FakeProcessRunner::Started& process) {
    for (const auto& [name, value] : process.environment) {
      if (name == "CUDA_VISIBLE_DEVICES") return value;
    }
    return "(unset)";
  }

  std::optional<WorkDir> dir_;
  Plan plan_;
  FakeProcessRunner runner_;
  ExecutorContext context_;
};

TEST_F(LocalExecutorTest, OneCellPerGpuEachSeeingOnlyItsGpu) {
  two_gpus();
  const std::vector<Cell> cells = {cell("a", 1, "H200"), cell("a", 1, "H200", 1),
                                   cell("a", 1, "any", 2)};
  const std::vector<CellEnd> ends = run(cells);
  ASSERT_EQ(ends.size(), 3u);
  ASSERT_EQ(runner_.started.size(), 3u);
  EXPECT_EQ(runner_.most_at_once, 2u);
  EXPECT_EQ(visible(runner_.started[0]), "0");
  EXPECT_EQ(visible(runner_.started[1]), "1");
  EXPECT_EQ(visible(runner_.started[2]), "0");  // GPU 0 ended first and took the next cell
  // Each worker is `d2k sweep cell <the cell's file>`, logging to the cell's log.
  EXPECT_EQ(runner_.started[0].argv,
            (std::vector<std::string>{"d2k", "sweep", "cell",
                                      (dir_->root() / "cells" / (cells[0].file_stem() + ".json")).string()}));
  EXPECT_EQ(runner_.started[0].log, dir_->log(cells[0]));
  EXPECT_EQ(read_cell(runner_.started[0].argv.back()).key(), cells[0].key());
  EXPECT_EQ(ends[0].state, "exited with status 0");
}

TEST_F(LocalExecutorTest, CpuCellsRunBesideGpuCellsUpToCpuWorkers) {
  two_gpus();
  plan_.executor.cpu_workers = 2;
  run({cell("c", 0, "cpu"), cell("c", 0, "cpu", 1), cell("c", 0, "cpu", 2), cell("g", 1, "H200")});
  EXPECT_EQ(runner_.most_at_once, 3u);  // one GPU cell and two CPU cells
  for (const auto& process : runner_.started) {
    if (read_cell(process.argv.back()).gpus == 0) {
      EXPECT_EQ(visible(process), "");
    }
  }
}

TEST_F(LocalExecutorTest, AGpuCellRunsOnlyOnAGpuOfItsKind) {
  two_gpus("NVIDIA B200");
  const std::vector<CellEnd> ends = run({cell("a", 1, "B200"), cell("a", 1, "H100")});
  ASSERT_EQ(runner_.started.size(), 1u);
  EXPECT_EQ(visible(runner_.started[0]), "1");
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(ends[0].state, "not run: no H100 GPU here");
}

TEST_F(LocalExecutorTest, HonoursCudaVisibleDevicesAndTheGpuLimit) {
  two_gpus();
  setenv("CUDA_VISIBLE_DEVICES", "1", 1);
  EXPECT_EQ(LocalExecutor(context_).gpus().size(), 1u);
  EXPECT_EQ(LocalExecutor(context_).gpus()[0].index, "1");
  unsetenv("CUDA_VISIBLE_DEVICES");
  plan_.executor.gpus = 1;
  EXPECT_EQ(LocalExecutor(context_).gpus().size(), 1u);
  runner_.on_run = [](const std::vector<std::string>& argv) -> CommandOutput {
    throw std::runtime_error("cannot run " + argv.front());
  };
  EXPECT_TRUE(LocalExecutor(context_).gpus().empty());
}

}  // namespace
}  // namespace d2k::sweep
