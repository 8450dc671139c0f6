#include "task/task_loader.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "task/task_error.h"
#include "util/hostile_text_test_util.h"

namespace d2k::task {
namespace {

namespace fs = std::filesystem;

// Line numbers matter: tests that break a field assert the line it is on.
constexpr const char* kConfig = R"({
  "benchmark_id": "scale_rows",
  "fixed_params": {"scale": 2},
  "workloads": [
    {"label": "small", "rows": 4, "cols": 8},
    {"label": "large", "rows": 64, "cols": 128}
  ],
  "input_rules": {
    "static_inputs": ["scale"],
    "dynamic_inputs": ["x", "state"],
    "mutable_inputs": ["state"]
  },
  "tolerance": {"rel_norm_rtol": 0.001, "atol": 0.0001},
  "evaluation": {
    "device": "cpu",
    "timing": "events",
    "arguments": ["x", "state", "scale"],
    "outputs": ["y"]
  }
}
)";

constexpr const char* kRequirements = R"(# rules for candidates
requirements:
  - Return a new tensor for y.
  - Update state in place.
)";

constexpr const char* kRequiredFiles[] = {"task_description.md",
                                          "config.json",
                                          "get_inputs.py",
                                          "reference.py",
                                          "implementation_requirements.yaml",
                                          "solution.py"};

std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("test text lacks: " + std::string(from));
  return text.replace(at, from.size(), to);
}

class TaskLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("d2k_task_loader_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }

  void TearDown() override { fs::remove_all(root_); }

  static void write(const fs::path& file, std::string_view text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
  }

  // A minimal valid task; each test then breaks one thing.
  fs::path write_task(const std::string& id, const std::string& config = kConfig) {
    const fs::path dir = root_ / id;
    write(dir / "task_description.md", "Intro line\n\n## Scale rows ##\n\nScale every row.\n");
    write(dir / "config.json", config);
    write(dir / "get_inputs.py", "def get_inputs(config):\n    return {}\n");
    write(dir / "reference.py", "def run(x, state, scale):\n    return x * scale\n");
    write(dir / "implementation_requirements.yaml", kRequirements);
    write(dir / "solution.py", "def run(x, state, scale):\n    raise NotImplementedError\n");
    return dir;
  }

  // The TaskError that loading `dir` raises; fails the test when loading succeeds.
  static TaskError load_error(const fs::path& dir) {
    try {
      load_task(dir);
    } catch (const TaskError& error) {
      return error;
    }
    ADD_FAILURE() << "loading " << dir << " succeeded";
    return TaskError(dir, "no error");
  }

  TaskError config_error(const std::string& config) { return load_error(write_task("t", config)); }

  fs::path root_;
};

TEST_F(TaskLoaderTest, LoadsValidTask) {
  const Task task = load_task(write_task("scale_rows"));
  EXPECT_EQ(task.id, "scale_rows");
  EXPECT_EQ(task.dir, root_ / "scale_rows");
  EXPECT_EQ(task.title, "Scale rows");
  EXPECT_EQ(task.config.at("benchmark_id"), "scale_rows");
  EXPECT_EQ(task.fixed_params, nlohmann::json({{"scale", 2}}));

  ASSERT_EQ(task.workloads.size(), 2u);
  EXPECT_EQ(task.workloads[1].label, "large");
  EXPECT_EQ(task.workloads[1].params,
            nlohmann::json({{"label", "large"}, {"rows", 64}, {"cols", 128}}));
  EXPECT_EQ(task.find_workload("small")->params.at("cols"), 8);

  EXPECT_EQ(task.input_rules.static_inputs, std::vector<std::string>{"scale"});
  EXPECT_EQ(task.input_rules.dynamic_inputs, (std::vector<std::string>{"x", "state"}));
  EXPECT_TRUE(task.input_rules.is_mutable("state"));

  EXPECT_DOUBLE_EQ(task.tolerance.rel_norm_rtol, 0.001);
  EXPECT_DOUBLE_EQ(task.tolerance.atol, 0.0001);
  EXPECT_DOUBLE_EQ(task.tolerance.rtol, 0.0);
  EXPECT_DOUBLE_EQ(task.tolerance.grader_scale, 1.0);

  EXPECT_EQ(task.evaluation.device, Device::cpu);
  EXPECT_EQ(task.evaluation.timing_method, "events");
  EXPECT_EQ(task.evaluation.arguments, (std::vector<std::string>{"x", "state", "scale"}));
  EXPECT_EQ(task.evaluation.outputs, std::vector<std::string>{"y"});
  EXPECT_EQ(task.evaluation.correctness_trials, 3);
  EXPECT_DOUBLE_EQ(task.evaluation.min_sample_seconds, 1.0);
  EXPECT_EQ(task.evaluation.timing_samples, 5);
  EXPECT_DOUBLE_EQ(task.evaluation.call_timeout_seconds, 120.0);
  EXPECT_DOUBLE_EQ(task.evaluation.workload_timeout_seconds, 1200.0);
  EXPECT_EQ(task.evaluation.languages, std::vector<Language>{Language::python});
  EXPECT_FALSE(task.evaluation.native.nvcc_flags.has_value());
  EXPECT_FALSE(task.evaluation.native.cxx_flags.has_value());
  EXPECT_DOUBLE_EQ(task.evaluation.native.compile_timeout_seconds, 300.0);

  EXPECT_EQ(task.requirements,
            (std::vector<std::string>{"Return a new tensor for y.", "Update state in place."}));
}

TEST_F(TaskLoaderTest, ReadsOptionalValuesWhenGiven) {
  std::string config = replaced(kConfig, R"("atol": 0.0001})",
                                R"("atol": 0.0001, "rtol": 0.01, "grader_scale": 2})");
  config = replaced(config, R"("outputs": ["y"])",
                    R"("outputs": ["y"], "correctness_trials": 4, "min_sample_seconds": 0.5,
    "timing_samples": 7, "call_timeout_seconds": 30, "workload_timeout_seconds": 600)");
  config = replaced(config, R"(  "fixed_params": {"scale": 2},
)",
                    "");
  config = replaced(config, R"(,
    "mutable_inputs": ["state"])",
                    "");
  const Task task = load_task(write_task("t", config));
  EXPECT_DOUBLE_EQ(task.tolerance.rtol, 0.01);
  EXPECT_DOUBLE_EQ(task.tolerance.effective_rel_norm_rtol(), 0.002);
  EXPECT_EQ(task.evaluation.correctness_trials, 4);
  EXPECT_DOUBLE_EQ(task.evaluation.min_sample_seconds, 0.5);
  EXPECT_EQ(task.evaluation.timing_samples, 7);
  EXPECT_DOUBLE_EQ(task.evaluation.call_timeout_seconds, 30.0);
  EXPECT_DOUBLE_EQ(task.evaluation.workload_timeout_seconds, 600.0);
  EXPECT_EQ(task.fixed_params, nlohmann::json::object());
  EXPECT_TRUE(task.input_rules.mutable_inputs.empty());
}

TEST_F(TaskLoaderTest, ReadsLanguagesAndNativeBuildSettings) {
  const Task task = load_task(write_task(
      "t", replaced(kConfig, R"("outputs": ["y"])", R"("outputs": ["y"],
    "languages": ["cpp", "python"],
    "native": {"cxx_flags": ["-O2", "-Xlinker", "-z", "-Xlinker", "now"],
               "compile_timeout_seconds": 60})")));
  EXPECT_EQ(task.evaluation.languages, (std::vector<Language>{Language::cpp, Language::python}));
  EXPECT_TRUE(task.evaluation.accepts(Language::cpp));
  EXPECT_FALSE(task.evaluation.accepts(Language::cuda));
  EXPECT_EQ(task.evaluation.native.cxx_flags,
            (std::vector<std::string>{"-O2", "-Xlinker", "-z", "-Xlinker", "now"}));
  EXPECT_FALSE(task.evaluation.native.nvcc_flags.has_value());
  EXPECT_DOUBLE_EQ(task.evaluation.native.compile_timeout_seconds, 60.0);
}

TEST_F(TaskLoaderTest, AnEmptyFlagListReplacesTheDefaults) {
  const Task task =
      load_task(write_task("t", replaced(kConfig, R"("outputs": ["y"])",
                                         R"("outputs": ["y"], "native": {"cxx_flags": []})")));
  EXPECT_EQ(task.evaluation.native.cxx_flags, std::vector<std::string>{});
}

TEST_F(TaskLoaderTest, ATimingOnlyAnchorMustBeOneOfTheTasksAnchors) {
  const std::string config = replaced(kConfig, R"("outputs": ["y"])",
                                      R"("outputs": ["y"], "timing_only_anchors": ["dense"])");
  const fs::path dir = write_task("t", config);
  const TaskError error = load_error(dir);
  EXPECT_EQ(error.message(),
            "evaluation.timing_only_anchors[0]: no anchor \"dense\" (anchors/dense.py)");
  write(dir / "anchors" / "dense.py", "def run(x, state, scale):\n    return x\n");
  EXPECT_EQ(load_task(dir).evaluation.timing_only_anchors, std::vector<std::string>{"dense"});
}

TEST_F(TaskLoaderTest, RejectsUnknownLanguage) {
  const TaskError error = config_error(
      replaced(kConfig, R"("outputs": ["y"])", R"("outputs": ["y"], "languages": ["fortran"])"));
  EXPECT_EQ(error.message(),
            "evaluation.languages[0]: expected \"python\", \"cuda\" or \"cpp\", got \"fortran\"");
  EXPECT_EQ(error.line(), 18);
}

TEST_F(TaskLoaderTest, RejectsALanguageTheDeviceCannotRun) {
  const TaskError error = config_error(replaced(
      kConfig, R"("outputs": ["y"])", R"("outputs": ["y"], "languages": ["python", "cuda"])"));
  EXPECT_EQ(error.message(),
            "evaluation.languages[1]: \"cuda\" candidates need \"device\": \"cuda\"");
}

TEST_F(TaskLoaderTest, RejectsAnEmptyLanguageList) {
  const TaskError error = config_error(
      replaced(kConfig, R"("outputs": ["y"])", R"("outputs": ["y"], "languages": [])"));
  EXPECT_EQ(error.message(), "evaluation.languages: expected a non-empty array of strings");
}

TEST_F(TaskLoaderTest, RejectsUnknownNativeField) {
  const TaskError error = config_error(replaced(
      kConfig, R"("outputs": ["y"])", R"("outputs": ["y"], "native": {"nvcc_flag": ["-O3"]})"));
  EXPECT_TRUE(error.message().starts_with("evaluation.native.nvcc_flag: unknown field"))
      << error.what();
}

TEST_F(TaskLoaderTest, RejectsAFlagThatIsNotAString) {
  const TaskError error = config_error(replaced(
      kConfig, R"("outputs": ["y"])", R"("outputs": ["y"], "native": {"nvcc_flags": ["-O3", 3]})"));
  EXPECT_EQ(error.message(), "evaluation.native.nvcc_flags[1]: expected a string, got 3");
}

TEST_F(TaskLoaderTest, TitleFallsBackToId) {
  const fs::path dir = write_task("no_heading");
  write(dir / "task_description.md", "#hashtag is no heading\nplain text\n");
  EXPECT_EQ(load_task(dir).title, "no_heading");
}

TEST_F(TaskLoaderTest, IdIgnoresTrailingSeparator) {
  const fs::path dir = write_task("scale_rows");
  EXPECT_EQ(load_task(dir.string() + "/").id, "scale_rows");
}

TEST_F(TaskLoaderTest, NamesEachMissingRequiredFile) {
  for (const char* name : kRequiredFiles) {
    const fs::path dir = write_task(std::string("missing_") + name);
    fs::remove(dir / name);
    const TaskError error = load_error(dir);
    EXPECT_EQ(error.file(), dir / name);
    EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
  }
}

TEST_F(TaskLoaderTest, OptionalFilesAreAccepted) {
  const fs::path dir = write_task("t");
  write(dir / "guidance.json", R"({"L1": "a", "L2": "b", "L3": "c", "cross_level_rationale": ""})");
  write(dir / "judge_criteria.md", "# Criteria\n");
  write(dir / "baseline" / "solution.py", "def run(x, state, scale):\n    return x\n");
  EXPECT_EQ(load_task(dir).id, "t");
}

TEST_F(TaskLoaderTest, MalformedJsonReportsLineAndColumn) {
  // Drop the comma after the first workload: the parser trips on the next "{" (line 6).
  const TaskError error = config_error(replaced(kConfig, R"("cols": 8},)", R"("cols": 8})"));
  EXPECT_EQ(error.line(), 6);
  EXPECT_EQ(error.column(), 5);
  EXPECT_EQ(std::string(error.what()),
            (root_ / "t" / "config.json").string() +
                ":6:5: invalid JSON: syntax error while parsing array - unexpected '{'; "
                "expected ']'");
}

TEST_F(TaskLoaderTest, MalformedYamlReportsLine) {
  const fs::path dir = write_task("t");
  write(dir / "implementation_requirements.yaml",
        "requirements:\n  - fine\n  - a: b: c\n  - later\n");
  const TaskError error = load_error(dir);
  EXPECT_EQ(error.file(), dir / "implementation_requirements.yaml");
  EXPECT_EQ(error.line(), 3) << error.what();
  EXPECT_EQ(error.column(), 9) << error.what();
  EXPECT_EQ(error.message(), "invalid YAML: illegal map value");
}

TEST_F(TaskLoaderTest, RequirementsMustBeNonEmptyStrings) {
  const fs::path dir = write_task("t");
  write(dir / "implementation_requirements.yaml", "requirements:\n  - fine\n  - {a: 1}\n");
  const TaskError error = load_error(dir);
  EXPECT_EQ(error.line(), 3);
  EXPECT_EQ(error.message(), "requirements[1]: expected a string");

  write(dir / "implementation_requirements.yaml", "rules: []\n");
  EXPECT_EQ(load_error(dir).message(), "requirements: required key is missing");
}

TEST_F(TaskLoaderTest, RejectsDuplicateLabels) {
  const TaskError error =
      config_error(replaced(kConfig, R"({"label": "large")", R"({"label": "small")"));
  EXPECT_EQ(error.message(), "workloads[1].label: duplicate label \"small\" (also workloads[0])");
  EXPECT_EQ(error.line(), 6);
  EXPECT_EQ(error.column(), 15);
}

TEST_F(TaskLoaderTest, RejectsArgumentNotCoveredByInputRules) {
  const TaskError error =
      config_error(replaced(kConfig, R"("static_inputs": ["scale"])", R"("static_inputs": [])"));
  EXPECT_EQ(error.message(),
            "evaluation.arguments[2]: \"scale\" is in neither input_rules.static_inputs nor "
            "input_rules.dynamic_inputs");
  EXPECT_EQ(error.line(), 17);
}

TEST_F(TaskLoaderTest, RejectsInputThatIsNotAnArgument) {
  const TaskError error = config_error(replaced(kConfig, R"("dynamic_inputs": ["x", "state"])",
                                                R"("dynamic_inputs": ["x", "state", "w"])"));
  EXPECT_EQ(error.message(),
            "input_rules.dynamic_inputs[2]: \"w\" is not one of evaluation.arguments");
  EXPECT_EQ(error.line(), 10);
}

TEST_F(TaskLoaderTest, RejectsMutableInputThatIsNotDynamic) {
  std::string config =
      replaced(kConfig, R"("mutable_inputs": ["state"])", R"("mutable_inputs": ["scale"])");
  const TaskError error = config_error(config);
  EXPECT_EQ(error.message(),
            "input_rules.mutable_inputs[0]: \"scale\" must also be listed in dynamic_inputs");
  EXPECT_EQ(error.line(), 11);
}

TEST_F(TaskLoaderTest, RejectsFewerThanThreeCorrectnessTrials) {
  const TaskError error = config_error(replaced(kConfig, R"("timing": "events",)",
                                                R"("timing": "events", "correctness_trials": 2,)"));
  EXPECT_EQ(error.message(),
            "evaluation.correctness_trials: expected an integer of at least 3, got 2");
  EXPECT_EQ(error.line(), 16);
  EXPECT_EQ(error.column(), 47);
}

TEST_F(TaskLoaderTest, RejectsUnknownDevice) {
  const TaskError error =
      config_error(replaced(kConfig, R"("device": "cpu")", R"("device": "gpu")"));
  EXPECT_EQ(error.message(), "evaluation.device: expected \"cuda\" or \"cpu\", got \"gpu\"");
  const std::string expected = (root_ / "t" / "config.json").string() + ":15:15: ";
  EXPECT_TRUE(std::string(error.what()).starts_with(expected)) << error.what();
}

TEST_F(TaskLoaderTest, RejectsUnknownEvaluationField) {
  const TaskError error = config_error(
      replaced(kConfig, R"("timing": "events",)", R"("timing": "events", "timing_sample": 9,)"));
  EXPECT_TRUE(error.message().starts_with("evaluation.timing_sample: unknown field"))
      << error.what();
  EXPECT_EQ(error.line(), 16);
}

TEST_F(TaskLoaderTest, EveryImplementationIsTimedOneWay) {
  // A separate method for the reference is not part of the protocol any more.
  const TaskError error = config_error(replaced(kConfig, R"("timing": "events",)",
                                                R"("timing": "graph", "reference_timing": "events",)"));
  EXPECT_TRUE(error.message().starts_with("evaluation.reference_timing: unknown field"))
      << error.what();
}

TEST_F(TaskLoaderTest, CachePolicyAndStoppingRuleDefaultAndValidate) {
  const Task task = load_task(write_task("t"));
  EXPECT_EQ(task.evaluation.cache_policy, "cold");
  EXPECT_EQ(task.evaluation.stopping, "fixed");
  const Task hot = load_task(write_task(
      "u", replaced(kConfig, R"("timing": "events",)",
                    R"("timing": "events", "cache": "hot", "stopping": "noise",)")));
  EXPECT_EQ(hot.evaluation.cache_policy, "hot");
  EXPECT_EQ(hot.evaluation.stopping, "noise");
  EXPECT_EQ(config_error(replaced(kConfig, R"("timing": "events",)",
                                  R"("timing": "events", "cache": "warm",)"))
                .message(),
            "evaluation.cache: expected \"cold\" or \"hot\", got \"warm\"");
  EXPECT_EQ(config_error(replaced(kConfig, R"("timing": "events",)",
                                  R"("timing": "events", "stopping": "never",)"))
                .message(),
            "evaluation.stopping: expected \"fixed\" or \"noise\", got \"never\"");
}

TEST_F(TaskLoaderTest, GpuTasksSampleForAtLeastOneSecond) {
  const std::string gpu = replaced(kConfig, R"("device": "cpu",)", R"("device": "cuda",)");
  const TaskError error = config_error(
      replaced(gpu, R"("timing": "events",)", R"("timing": "events", "min_sample_seconds": 0.3,)"));
  EXPECT_TRUE(error.message().starts_with(
      "evaluation.min_sample_seconds: 0.3 s is below the protocol's minimum of 1 s"))
      << error.what();
  // The CPU pipeline demo and test fixtures time the host clock and may sample shorter.
  EXPECT_EQ(load_task(write_task("cpu", replaced(kConfig, R"("timing": "events",)",
                                                 R"("timing": "events", "min_sample_seconds": 0.02,)")))
                .evaluation.min_sample_seconds,
            0.02);
}

TEST_F(TaskLoaderTest, QuickWorkloadsAreOptionalAndValidatedLikeWorkloads) {
  EXPECT_TRUE(load_task(write_task("t")).quick_workloads.empty());
  const Task task = load_task(write_task(
      "q", replaced(kConfig, R"("input_rules": {)",
                    R"("quick_workloads": [{"label": "tiny", "rows": 2, "cols": 3}],
  "input_rules": {)")));
  ASSERT_EQ(task.quick_workloads.size(), 1u);
  EXPECT_EQ(task.quick_workloads[0].label, "tiny");
  EXPECT_EQ(task.workloads.size(), 2u);
  const TaskError error = config_error(replaced(
      kConfig, R"("input_rules": {)", R"("quick_workloads": [{"rows": 2}],
  "input_rules": {)"));
  EXPECT_EQ(error.message(), "quick_workloads[0].label: required field is missing");
}

TEST_F(TaskLoaderTest, MissingFieldPointsAtItsObject) {
  const TaskError error = config_error(replaced(kConfig, R"("rel_norm_rtol": 0.001, )", ""));
  EXPECT_EQ(error.message(), "tolerance.rel_norm_rtol: required field is missing");
  EXPECT_EQ(error.line(), 13);
  EXPECT_EQ(error.column(), 16);
}

TEST_F(TaskLoaderTest, RejectsNonPositiveTolerance) {
  const TaskError error =
      config_error(replaced(kConfig, R"("rel_norm_rtol": 0.001)", R"("rel_norm_rtol": 0)"));
  EXPECT_EQ(error.message(), "tolerance.rel_norm_rtol: expected a number greater than 0, got 0");
}

TEST_F(TaskLoaderTest, RejectsWrongTypeWithPath) {
  const TaskError error =
      config_error(replaced(kConfig, R"("outputs": ["y"])", R"("outputs": ["y", 3])"));
  EXPECT_EQ(error.message(), "evaluation.outputs[1]: expected a string, got 3");
  EXPECT_EQ(error.line(), 18);
}

TEST_F(TaskLoaderTest, MalformedGuidanceReportsLine) {
  const fs::path dir = write_task("t");
  write(dir / "guidance.json", "{\n  \"L1\": \"hint\",\n  \"L2\": \n}\n");
  const TaskError error = load_error(dir);
  EXPECT_EQ(error.file(), dir / "guidance.json");
  EXPECT_EQ(error.line(), 4);
  EXPECT_EQ(error.column(), 1);
}

TEST_F(TaskLoaderTest, FindsTaskDirsSorted) {
  write_task("b_task");
  write_task("a_task");
  fs::create_directories(root_ / "c_not_a_task");
  write(root_ / "README.md", "not a folder");
  EXPECT_EQ(find_task_dirs(root_), (std::vector<fs::path>{root_ / "a_task", root_ / "b_task"}));
  EXPECT_THROW(find_task_dirs(root_ / "absent"), TaskError);
}

TEST_F(TaskLoaderTest, DefaultTasksRootHonoursEnvironment) {
  const char* saved = std::getenv("D2K_TASKS");
  const std::string previous = saved != nullptr ? saved : "";
  setenv("D2K_TASKS", root_.c_str(), 1);
  EXPECT_EQ(default_tasks_root(), root_);
  unsetenv("D2K_TASKS");
  EXPECT_EQ(default_tasks_root(), fs::path(D2K_SOURCE_DIR) / "tasks");
  if (saved != nullptr) setenv("D2K_TASKS", previous.c_str(), 1);
}

}  // namespace
}  // namespace d2k::task

namespace d2k::task {
namespace {

constexpr const char* kWorkModel =
    R"("fixed_params": {"scale": 2},
  "work_model": {"flops": "rows * cols * scale", "bytes": "8 * rows * cols", "math_dtype": "fp32"},)";

TEST_F(TaskLoaderTest, EvaluatesTheWorkModelForEveryWorkload) {
  const Task task = load_task(write_task("t", replaced(kConfig, R"("fixed_params": {"scale": 2},)", kWorkModel)));
  ASSERT_TRUE(task.work_model);
  EXPECT_EQ(task.work_model->math_dtype, "fp32");
  ASSERT_TRUE(task.workloads[0].work);
  EXPECT_DOUBLE_EQ(task.workloads[0].work->flops, 4 * 8 * 2);
  EXPECT_DOUBLE_EQ(task.workloads[0].work->bytes, 8 * 4 * 8);
  EXPECT_DOUBLE_EQ(task.workloads[1].work->flops, 64 * 128 * 2);
}

TEST_F(TaskLoaderTest, AWorkModelIsOptional) {
  const Task task = load_task(write_task("t"));
  EXPECT_FALSE(task.work_model);
  EXPECT_FALSE(task.workloads[0].work);
}

TEST_F(TaskLoaderTest, ABadFormulaNamesTheFieldLineAndWorkload) {
  const TaskError error = config_error(replaced(
      kConfig, R"("fixed_params": {"scale": 2},)",
      replaced(kWorkModel, "8 * rows * cols", "8 * rows * depth")));
  EXPECT_TRUE(error.message().starts_with("work_model.bytes: workload \"small\": \"8 * rows * depth\""))
      << error.what();
  EXPECT_EQ(error.line(), 4);
  EXPECT_NE(std::string(error.what()).find("config.json"), std::string::npos) << error.what();
}

TEST_F(TaskLoaderTest, RejectsANegativeWorkAndAnUnknownMathDtype) {
  EXPECT_TRUE(config_error(replaced(kConfig, R"("fixed_params": {"scale": 2},)",
                                    replaced(kWorkModel, "rows * cols * scale", "-rows")))
                  .message()
                  .starts_with("work_model.flops: workload \"small\": -4 is negative"));
  EXPECT_EQ(
      config_error(replaced(kConfig, R"("fixed_params": {"scale": 2},)",
                            replaced(kWorkModel, R"("fp32")", R"("int8")")))
          .message(),
      "work_model.math_dtype: expected \"bf16\", \"fp16\", \"fp32\" or \"fp8\", got \"int8\"");
}

// The repository's Muon task counts the least work of its map (docs/task-format.md): two Grams and
// two commits on the rectangular matrix, 6 s^2 l, and 14 one-triangle s x s products; bf16 in and
// out. It is below the reference's own count (5 steps of 4 s^2 l + 2 s^3), which a Gram-side
// implementation would otherwise beat.
TEST(RepositoryTaskTest, MuonWorkModelCountsTheLeastWorkOfTheMap) {
  const Task task = load_task(std::filesystem::path(D2K_SOURCE_DIR) / "tasks" / "muon_orthogonalization");
  ASSERT_TRUE(task.work_model);
  EXPECT_EQ(task.work_model->math_dtype, "fp16");
  const Workload* workload = task.find_workload("production_b32_m2048_n5464");
  ASSERT_NE(workload, nullptr);
  ASSERT_TRUE(workload->work);
  const double M = 2048, N = 5464, batch = 32, steps = 5;
  EXPECT_DOUBLE_EQ(workload->work->flops, batch * (6 * M * M * N + 14 * M * M * M));
  EXPECT_LT(workload->work->flops, batch * steps * (4 * M * M * N + 2 * M * M * M) / 2);
  EXPECT_DOUBLE_EQ(workload->work->bytes, batch * M * N * 2 * 2);
}

}  // namespace
}  // namespace d2k::task

namespace d2k::task {
namespace {

// evaluation.peak_aux_bytes, on the "outputs" line (line 18) of kConfig.
std::string with_peak_bound(std::string_view formula) {
  return replaced(kConfig, R"("outputs": ["y"])",
                  R"("outputs": ["y"], "peak_aux_bytes": ")" + std::string(formula) + "\"");
}

TEST_F(TaskLoaderTest, EvaluatesThePeakAuxiliaryBoundForEveryWorkload) {
  const Task task = load_task(write_task("t", with_peak_bound("4 * rows * cols * scale + 0.5")));
  EXPECT_EQ(task.evaluation.peak_aux_bytes, "4 * rows * cols * scale + 0.5");
  EXPECT_EQ(task.workloads[0].peak_aux_bytes, 4 * 4 * 8 * 2);  // a half byte rounds down
  EXPECT_EQ(task.workloads[1].peak_aux_bytes, 4 * 64 * 128 * 2);
}

TEST_F(TaskLoaderTest, APeakAuxiliaryBoundIsOptional) {
  const Task task = load_task(write_task("t"));
  EXPECT_FALSE(task.evaluation.peak_aux_bytes);
  EXPECT_FALSE(task.workloads[0].peak_aux_bytes);
}

TEST_F(TaskLoaderTest, ABadPeakBoundNamesTheFieldLineAndWorkload) {
  const TaskError unknown = config_error(with_peak_bound("rows * depth"));
  EXPECT_TRUE(unknown.message().starts_with("evaluation.peak_aux_bytes: workload \"small\": "))
      << unknown.what();
  EXPECT_EQ(unknown.line(), 18);
  EXPECT_TRUE(config_error(with_peak_bound("cols - 100"))
                  .message()
                  .starts_with("evaluation.peak_aux_bytes: workload \"small\": -92 is negative"));
  EXPECT_EQ(config_error(replaced(kConfig, R"("outputs": ["y"])",
                                  R"("outputs": ["y"], "peak_aux_bytes": 1024)"))
                .message(),
            "evaluation.peak_aux_bytes: expected a string, got 1024");
}

}  // namespace
}  // namespace d2k::task

namespace d2k::task {
namespace {

// A bounded random-input test of the task readers: whatever config.json and
// implementation_requirements.yaml hold (random bytes, nesting far past the depth limit, the
// valid files with bytes changed), loading gives a task or a TaskError, never a crash.
TEST_F(TaskLoaderTest, HostileConfigsGiveTaskErrorsNeverCrashes) {
  util::HostileText hostile(11);
  int refused = 0;
  constexpr int kRounds = 600;
  for (int round = 0; round < kRounds; ++round) {
    const bool yaml = hostile.pick(4) == 0;
    const fs::path dir = write_task("fuzz", yaml ? std::string(kConfig) : hostile.next(kConfig));
    if (yaml) write(dir / "implementation_requirements.yaml", hostile.next(kRequirements));
    try {
      load_task(dir);
    } catch (const TaskError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, kRounds / 3);
}

TEST_F(TaskLoaderTest, ReadsTheCategory) {
  const Task task = load_task(write_task(
      "t", replaced(kConfig, R"("fixed_params")", R"("category": "moe_distributed", "fixed_params")")));
  EXPECT_EQ(task.category, Category::moe_distributed);
  EXPECT_EQ(load_task(write_task("u", kConfig)).category, std::nullopt);
}

TEST_F(TaskLoaderTest, RejectsAnUnknownCategory) {
  const TaskError error = config_error(
      replaced(kConfig, R"("fixed_params")", R"("category": "gemm", "fixed_params")"));
  EXPECT_EQ(error.message(),
            "category: \"gemm\" is not a category (attention_recurrent, moe_distributed, "
            "indexing_sampling_control, quantization_training_structural)");
}

// Sweep plans select the suite's tasks by category, so every task of the suite declares one.
TEST(RepositoryTasksTest, EveryTaskHasACategory) {
  for (const fs::path& dir : find_task_dirs(fs::path(D2K_SOURCE_DIR) / "tasks")) {
    EXPECT_TRUE(load_task(dir).category.has_value()) << dir;
  }
}

}  // namespace
}  // namespace d2k::task
