#include "sweep/slurm_executor.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "sweep/fake_process_runner_test_util.h"

namespace d2k::sweep {
namespace {

namespace fs = std::filesystem;

// A scripted cluster: sbatch answers a job id, squeue answers one state list per call.
class SlurmExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "d2k_slurm_executor_test_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_.emplace(pattern);
    plan_.name = "paper grid";
    plan_.executor.kind = "slurm";
    plan_.executor.poll_seconds = 0.001;
    context_.plan = &plan_;
    context_.work_dir = &*dir_;
    context_.d2k = {"/opt/d2k/d2k", "--tasks", "/opt/d2k/tasks"};
    context_.runner = &runner_;
    context_.say = [](const std::string&) {};
    runner_.on_run = [this](const std::vector<std::string>& argv) -> CommandOutput {
      if (argv.front() == "sbatch") {
        scripts_.push_back(read(argv.back()));
        return {{true, 0}, std::to_string(41 + scripts_.size()) + "\n"};
      }
      if (argv.front() == "squeue") {
        if (polls_.empty()) return {{true, 0}, ""};
        std::string answer = polls_.front();
        polls_.pop_front();
        return {{true, 0}, answer};
      }
      throw std::runtime_error("cannot run " + argv.front());  // no sacct here
    };
  }
  void TearDown() override { fs::remove_all(dir_->root()); }

  static std::string read(const fs::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  static Cell cell(const std::string& task, int gpus, double limit) {
    Cell cell;
    cell.task_id = task;
    cell.what = "expert";
    cell.device_kind = gpus > 0 ? "H200" : "cpu";
    cell.gpus = gpus;
    cell.time_limit_seconds = limit;
    return cell;
  }

  std::vector<CellEnd> run(const std::vector<Cell>& cells) {
    std::vector<CellEnd> ends;
    SlurmExecutor(context_).run(cells, [&](const CellEnd& end) { ends.push_back(end); });
    return ends;
  }

  std::optional<WorkDir> dir_;
  Plan plan_;
  FakeProcessRunner runner_;
  ExecutorContext context_;
  std::vector<std::string> scripts_;
  std::deque<std::string> polls_;
};

TEST_F(SlurmExecutorTest, OneArrayOfAllCellsWithGresTimeAndThrottle) {
  plan_.executor.max_running = 4;
  plan_.executor.partition = "gpu";
  plan_.executor.sbatch_args = {"--account=lab"};
  polls_ = {"42_0|RUNNING\n42_1|PENDING\n42_2|PENDING\n",
            "42_0|COMPLETED\n42_1|COMPLETED\n42_2|COMPLETED\n"};
  const std::vector<CellEnd> ends = run({cell("a", 1, 600), cell("b", 1, 1830), cell("c", 1, 60)});
  ASSERT_EQ(scripts_.size(), 1u);
  const std::string& script = scripts_[0];
  EXPECT_NE(script.find("#SBATCH --job-name=d2k-paper_grid\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --array=0-2%4\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --time=31\n"), std::string::npos) << script;  // 1830 s, rounded up
  EXPECT_NE(script.find("#SBATCH --gres=gpu:1\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --partition=gpu\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --account=lab\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --output=" + (dir_->root() / "logs").string() + "/slurm-%A_%a.log"),
            std::string::npos) << script;
  EXPECT_NE(script.find("exec /opt/d2k/d2k --tasks /opt/d2k/tasks sweep cell \"$cell\"\n"),
            std::string::npos) << script;
  ASSERT_EQ(ends.size(), 3u);
  EXPECT_EQ(ends[0].state, "COMPLETED");
  EXPECT_EQ(ends[0].log, (dir_->root() / "logs" / "slurm-42_0.log").string());
  // squeue is asked for every array task, finished ones included.
  const auto squeue = std::find_if(runner_.ran.begin(), runner_.ran.end(),
                                   [](const auto& argv) { return argv.front() == "squeue"; });
  ASSERT_NE(squeue, runner_.ran.end());
  EXPECT_EQ(*squeue, (std::vector<std::string>{"squeue", "--noheader", "--array", "--states=all",
                                               "--jobs", "42", "--format=%i|%T"}));
}

TEST_F(SlurmExecutorTest, TheListMapsEachArrayIndexToItsCell) {
  polls_ = {"42_0|COMPLETED\n42_1|COMPLETED\n"};
  const std::vector<Cell> cells = {cell("a", 1, 60), cell("b", 1, 60)};
  run(cells);
  const std::string& script = scripts_[0];
  const size_t at = script.find("p\" ") + 3;
  const fs::path list = script.substr(at, script.find('\n', at) - at);
  std::ifstream in(list);
  std::string first;
  std::string second;
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_EQ(read_cell(first).key(), cells[0].key());
  EXPECT_EQ(read_cell(second).key(), cells[1].key());
}

TEST_F(SlurmExecutorTest, CpuAndGpuCellsGoInSeparateArrays) {
  polls_ = {"42_0|COMPLETED\n", "43_0|COMPLETED\n"};
  run({cell("a", 0, 60), cell("b", 1, 60)});
  ASSERT_EQ(scripts_.size(), 2u);
  EXPECT_EQ(scripts_[0].find("--gres"), std::string::npos);
  EXPECT_NE(scripts_[1].find("#SBATCH --gres=gpu:1\n"), std::string::npos);
}

TEST_F(SlurmExecutorTest, ReportsEachTaskAsItEndsWithItsState) {
  polls_ = {"42_0|RUNNING\n42_1|CANCELLED\n", "42_0|TIMEOUT\n42_1|CANCELLED\n"};
  const std::vector<CellEnd> ends = run({cell("a", 1, 60), cell("b", 1, 60)});
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(ends[0].cell->task_id, "b");
  EXPECT_EQ(ends[0].state, "CANCELLED");
  EXPECT_EQ(ends[0].log, (dir_->root() / "logs" / "slurm-42_1.log").string());
  EXPECT_EQ(ends[1].state, "TIMEOUT");
}

TEST_F(SlurmExecutorTest, ATaskThatLeftTheQueueUnseenEndsUnknown) {
  polls_ = {"42_0|RUNNING\n"};  // then nothing, and no sacct
  const std::vector<CellEnd> ends = run({cell("a", 1, 60)});
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].state, "UNKNOWN (left the queue unseen)");
}

TEST_F(SlurmExecutorTest, SacctAnswersForTasksSqueueForgot) {
  runner_.on_run = [this](const std::vector<std::string>& argv) -> CommandOutput {
    if (argv.front() == "sbatch") return {{true, 0}, "42;cluster\n"};
    if (argv.front() == "squeue") return {{true, 0}, ""};
    return {{true, 0}, "42_0|CANCELLED by 0\n42_0.batch|CANCELLED\n"};
  };
  const std::vector<CellEnd> ends = run({cell("a", 1, 60)});
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].state, "CANCELLED");
  EXPECT_EQ(ends[0].log, (dir_->root() / "logs" / "slurm-42_0.log").string());
}

TEST_F(SlurmExecutorTest, WithoutWaitingItOnlySubmits) {
  context_.wait = false;
  EXPECT_TRUE(run({cell("a", 1, 60)}).empty());
  EXPECT_EQ(scripts_.size(), 1u);
  EXPECT_EQ(runner_.ran.size(), 1u);
}

TEST_F(SlurmExecutorTest, AFailedSubmissionIsAnError) {
  runner_.on_run = [](const std::vector<std::string>&) {
    return CommandOutput{{true, 1}, ""};
  };
  EXPECT_THROW(run({cell("a", 1, 60)}), std::runtime_error);
}

}  // namespace
}  // namespace d2k::sweep
