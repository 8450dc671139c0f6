#include "sweep/plan.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "sweep/plan_error.h"

namespace d2k::sweep {
namespace {

namespace fs = std::filesystem;

class PlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "d2k_plan_test_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& text, const std::string& name = "grid.yaml") {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }

  PlanError error_of(const std::string& text) {
    try {
      load_plan(write(text));
    } catch (const PlanError& error) {
      return error;
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return PlanError("", 0, 0, "no error");
  }

  fs::path dir_;
};

TEST_F(PlanTest, ReadsEveryField) {
  std::ofstream(dir_ / "mine.py") << "def run(): pass\n";
  const Plan plan = load_plan(write(R"(
name: paper-grid
tasks: [fused_moe, muon_orthogonalization]
categories: attention_recurrent
runs:
  - reference
  - baseline
  - expert
  - anchor: [triton_naive]
  - solution: mine.py
  - agent: {agent: claude, model: opus, configs: [none, L1+L2], budget: 350, timeout: 7200}
  - judge: {model: qwen}
repeats: 3
devices: [H200, B200]
work_dir: state
executor:
  kind: slurm
  partition: gpu
  max_running: 16
  gpus_per_cell: 2
  sbatch_args: [--account=lab]
  poll_seconds: 5
  retries: 1
)"));
  EXPECT_EQ(plan.name, "paper-grid");
  EXPECT_EQ(plan.task_ids, (std::vector<std::string>{"fused_moe", "muon_orthogonalization"}));
  EXPECT_EQ(plan.categories, std::vector<task::Category>{task::Category::attention_recurrent});
  ASSERT_EQ(plan.runs.size(), 7u);
  EXPECT_EQ(plan.runs[3].kind, RunKind::anchor);
  EXPECT_EQ(plan.runs[3].names, std::vector<std::string>{"triton_naive"});
  EXPECT_EQ(plan.runs[4].names, std::vector<std::string>{(dir_ / "mine.py").string()});
  EXPECT_EQ(plan.runs[5].agent.configs, (std::vector<std::string>{"none", "L1+L2"}));
  EXPECT_EQ(plan.runs[5].agent.budget, 350);
  EXPECT_EQ(plan.runs[5].agent.timeout_seconds, 7200.0);
  EXPECT_EQ(plan.runs[6].judge.model, "qwen");
  EXPECT_EQ(plan.repeats, 3);
  EXPECT_EQ(plan.devices, (std::vector<std::string>{"H200", "B200"}));
  EXPECT_EQ(plan.work_dir, dir_ / "state");
  EXPECT_EQ(plan.executor.kind, "slurm");
  EXPECT_EQ(plan.executor.max_running, 16);
  EXPECT_EQ(plan.executor.gpus_per_cell, 2);
  EXPECT_EQ(plan.executor.sbatch_args, std::vector<std::string>{"--account=lab"});
  EXPECT_EQ(plan.executor.retries, 1);
}

TEST_F(PlanTest, DefaultsToOneLocalRunOnAnyGpuWithAWorkFolderBesideThePlan) {
  const Plan plan = load_plan(write("tasks: all\nruns: [reference]\n", "experts.yaml"));
  EXPECT_TRUE(plan.all_tasks);
  EXPECT_EQ(plan.name, "experts");
  EXPECT_EQ(plan.repeats, 1);
  EXPECT_EQ(plan.devices, std::vector<std::string>{"any"});
  EXPECT_EQ(plan.work_dir, dir_ / "experts.sweep");
  EXPECT_EQ(plan.executor.kind, "local");
  EXPECT_EQ(plan.executor.cpu_workers, 1);
}

TEST_F(PlanTest, NamesTheBadFieldAndWhereItIs) {
  const PlanError error = error_of(
      "tasks: [a]\nruns:\n  - reference\n  - agent: {agent: claude, configs: [none, L4]}\n");
  EXPECT_EQ(error.message(),
            "runs[1].agent.configs[1]: \"L4\" is not a configuration (none, L1, L1+L2, L1+L2+L3, "
            "design)");
  EXPECT_NE(std::string(error.what()).find("grid.yaml:4:"), std::string::npos) << error.what();
}

TEST_F(PlanTest, RejectsUnknownFieldsRunsCategoriesAndExecutors) {
  EXPECT_EQ(error_of("tasks: [a]\nruns: [reference]\nrepeat: 2\n").message(),
            "repeat: unknown field (known: name, tasks, categories, runs, repeats, devices, "
            "work_dir, executor)");
  EXPECT_EQ(error_of("tasks: [a]\nruns: [reference, expertt]\n").message(),
            "runs[1]: \"expertt\" is not a run (reference, baseline, expert, anchor, or a "
            "mapping: anchor, solution, agent, judge)");
  EXPECT_EQ(error_of("categories: [gemm]\nruns: [reference]\n").message(),
            "categories[0]: \"gemm\" is not a category (attention_recurrent, moe_distributed, "
            "indexing_sampling_control, quantization_training_structural)");
  EXPECT_EQ(error_of("tasks: [a]\nruns: [reference]\nexecutor: {kind: pbs}\n").message(),
            "executor.kind: \"pbs\" is not an executor (local, slurm)");
  EXPECT_EQ(error_of("tasks: [a]\nruns: [reference]\nexecutor: {kind: local, partition: x}\n")
                .message(),
            "executor.partition: unknown field (known: kind, retries, gpus, cpu_workers)");
}

TEST_F(PlanTest, RejectsMissingAndMalformedValues) {
  EXPECT_EQ(error_of("runs: [reference]\n").message(),
            "tasks: required field is missing (task ids, \"all\", or give categories)");
  EXPECT_EQ(error_of("tasks: [a]\n").message(), "runs: required field is missing");
  EXPECT_EQ(error_of("tasks: [a, a]\nruns: [reference]\n").message(),
            "tasks[1]: \"a\" is listed twice");
  EXPECT_EQ(error_of("tasks: [a]\nruns: [reference]\nrepeats: 0\n").message(),
            "repeats: expected an integer of at least 1");
  EXPECT_EQ(error_of("tasks: [a]\nruns:\n  - solution: absent.py\n").message(),
            "runs[0].solution: no such file: " + (dir_ / "absent.py").string());
  EXPECT_EQ(error_of("tasks: [a]\nruns:\n  - agent: {configs: [none]}\n").message(),
            "runs[0].agent.agent: required field is missing");
  EXPECT_NE(std::string(error_of("tasks: [a\n").what()).find("invalid YAML"), std::string::npos);
}

}  // namespace
}  // namespace d2k::sweep

namespace d2k::sweep {
namespace {

// The plan that docs/sweep.md shows is one that loads.
TEST_F(PlanTest, TheDocumentedPlanLoads) {
  std::ifstream in(fs::path(D2K_SOURCE_DIR) / "docs" / "sweep.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t start = doc.find("```yaml\n");
  ASSERT_NE(start, std::string::npos);
  const size_t end = doc.find("```\n", start + 8);
  fs::create_directories(dir_ / "kernels");
  std::ofstream(dir_ / "kernels" / "my_softmax.py") << "def run(x): return x\n";
  const Plan plan = load_plan(write(doc.substr(start + 8, end - start - 8)));
  EXPECT_EQ(plan.name, "paper-grid");
  EXPECT_EQ(plan.runs.size(), 8u);
  EXPECT_EQ(plan.executor.kind, "slurm");
}

}  // namespace
}  // namespace d2k::sweep
