// evaluation.output_checks in config.json: the distribution check of a sampled output.

#include <unistd.h>

#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "task/task_error.h"
#include "task/task_loader.h"

namespace d2k::task {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Line numbers matter: tests that break a field assert the line it is on.
constexpr const char* kSamplerConfig = R"x({
  "benchmark_id": "sampler",
  "workloads": [
    {"label": "one_row", "batch": 1, "vocab": 50},
    {"label": "many_rows", "batch": 64, "vocab": 50}
  ],
  "input_rules": {"static_inputs": ["seed"], "dynamic_inputs": ["logits"]},
  "tolerance": {"rel_norm_rtol": 1e-6},
  "evaluation": {
    "device": "cpu",
    "timing": "events",
    "arguments": ["logits", "seed"],
    "outputs": ["samples"],
    "output_checks": {
      "samples": {"kind": "distribution", "seed_argument": "seed",
                  "draws": "max(100, 3200 / batch)", "significance": 1e-6}
    }
  }
}
)x";

std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("test text lacks: " + std::string(from));
  return text.replace(at, from.size(), to);
}

class DistributionConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("d2k_distribution_config_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path write_task(const std::string& config) {
    const fs::path dir = root_ / "sampler";
    fs::create_directories(dir);
    const auto write = [&](const char* name, const std::string& text) {
      std::ofstream(dir / name, std::ios::binary) << text;
    };
    write("task_description.md", "# Sampler\n");
    write("config.json", config);
    write("get_inputs.py", "def get_inputs(config):\n    return []\n");
    write("reference.py", "def run(logits, seed):\n    return logits\n");
    write("implementation_requirements.yaml", "requirements:\n  - Sample.\n");
    write("solution.py", "def run(logits, seed):\n    raise NotImplementedError\n");
    return dir;
  }

  std::string load_error(const std::string& config) {
    try {
      load_task(write_task(config));
    } catch (const TaskError& error) {
      return error.what();
    }
    ADD_FAILURE() << "the task loaded";
    return "";
  }

  fs::path root_;
};

TEST_F(DistributionConfigTest, ReadsTheCheckAndEvaluatesDrawsPerWorkload) {
  const Task task = load_task(write_task(kSamplerConfig));
  ASSERT_EQ(task.evaluation.distribution_checks.size(), 1u);
  const DistributionCheck* check = task.evaluation.distribution_check("samples");
  ASSERT_NE(check, nullptr);
  EXPECT_EQ(check->seed_argument, "seed");
  EXPECT_DOUBLE_EQ(check->significance, 1e-6);
  EXPECT_EQ(task.workloads[0].distribution_draws, 3200);
  EXPECT_EQ(task.workloads[1].distribution_draws, 100);
  EXPECT_EQ(task.evaluation.distribution_check("other"), nullptr);
}

TEST_F(DistributionConfigTest, DrawsMayBeAnIntegerAndSignificanceDefaults) {
  const Task task = load_task(write_task(replaced(
      kSamplerConfig, R"x("draws": "max(100, 3200 / batch)", "significance": 1e-6)x", R"x("draws": 500)x")));
  EXPECT_EQ(task.workloads[1].distribution_draws, 500);
  EXPECT_DOUBLE_EQ(task.evaluation.distribution_checks[0].significance, 1e-6);
}

TEST_F(DistributionConfigTest, TasksWithoutChecksHaveNone) {
  const std::string config = replaced(kSamplerConfig, R"x(,
    "output_checks": {
      "samples": {"kind": "distribution", "seed_argument": "seed",
                  "draws": "max(100, 3200 / batch)", "significance": 1e-6}
    })x", "");
  const Task task = load_task(write_task(config));
  EXPECT_TRUE(task.evaluation.distribution_checks.empty());
  EXPECT_EQ(task.workloads[0].distribution_draws, 0);
}

TEST_F(DistributionConfigTest, RejectsAnUnknownKind) {
  EXPECT_THAT(load_error(replaced(kSamplerConfig, R"x("kind": "distribution")x", R"x("kind": "sets")x")),
              HasSubstr("evaluation.output_checks.samples.kind: expected \"distribution\", got "
                        "\"sets\""));
}

TEST_F(DistributionConfigTest, RejectsAnOutputThatIsNotDeclared) {
  EXPECT_THAT(load_error(replaced(kSamplerConfig, R"x("samples": {"kind")x", R"x("tokens": {"kind")x")),
              HasSubstr("evaluation.output_checks.tokens: \"tokens\" is not one of evaluation.outputs"));
}

TEST_F(DistributionConfigTest, RejectsASeedArgumentThatIsNotAStaticInput) {
  EXPECT_THAT(
      load_error(replaced(kSamplerConfig, R"x("seed_argument": "seed")x", R"x("seed_argument": "logits")x")),
      HasSubstr("evaluation.output_checks.samples.seed_argument: \"logits\" must be an argument "
                "listed in input_rules.static_inputs"));
  EXPECT_THAT(
      load_error(replaced(kSamplerConfig, R"x("seed_argument": "seed")x", R"x("seed_argument": "rng")x")),
      HasSubstr("\"rng\" must be an argument"));
}

TEST_F(DistributionConfigTest, RejectsBadDrawsWithTheWorkload) {
  EXPECT_THAT(load_error(replaced(kSamplerConfig, "max(100, 3200 / batch)", "vocab - 50")),
              HasSubstr("evaluation.output_checks.samples.draws: workload \"one_row\": 0 draws; "
                        "expected 1 to 1e+06"));
  EXPECT_THAT(load_error(replaced(kSamplerConfig, "max(100, 3200 / batch)", "rows * 2")),
              HasSubstr("evaluation.output_checks.samples.draws: workload \"one_row\""));
  EXPECT_THAT(load_error(replaced(kSamplerConfig, R"x("draws": "max(100, 3200 / batch)")x", R"x("draws": true)x")),
              HasSubstr("expected a positive integer or a formula string"));
  EXPECT_THAT(load_error(replaced(kSamplerConfig, R"x("draws": "max(100, 3200 / batch)")x", R"x("draws": 0)x")),
              HasSubstr("expected an integer of at least 1"));
}

TEST_F(DistributionConfigTest, RejectsASignificanceOutsideItsRange) {
  EXPECT_THAT(load_error(replaced(kSamplerConfig, R"x("significance": 1e-6)x", R"x("significance": 0)x")),
              HasSubstr("significance: expected a number greater than 0"));
  EXPECT_THAT(load_error(replaced(kSamplerConfig, R"x("significance": 1e-6)x", R"x("significance": 0.5)x")),
              HasSubstr("significance: expected a number below 0.5"));
}

TEST_F(DistributionConfigTest, RejectsUnknownAndMissingFields) {
  EXPECT_THAT(load_error(replaced(kSamplerConfig, R"x("significance": 1e-6)x", R"x("alpha": 1e-6)x")),
              HasSubstr("evaluation.output_checks.samples.alpha: unknown field"));
  EXPECT_THAT(load_error(replaced(kSamplerConfig, R"x("seed_argument": "seed",)x", "")),
              HasSubstr("evaluation.output_checks.samples.seed_argument: required field is missing"));
}

}  // namespace
}  // namespace d2k::task
