#include "task/task.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace d2k::task {
namespace {

TEST(TaskTest, DeviceNamesRoundTrip) {
  EXPECT_EQ(to_string(Device::cuda), "cuda");
  EXPECT_EQ(to_string(Device::cpu), "cpu");
  EXPECT_EQ(parse_device("cpu"), Device::cpu);
  EXPECT_EQ(parse_device("cuda"), Device::cuda);
  EXPECT_EQ(parse_device("gpu"), std::nullopt);
}

TEST(TaskTest, ImplKindNamesRoundTrip) {
  for (ImplKind kind :
       {ImplKind::reference, ImplKind::baseline, ImplKind::expert, ImplKind::solution}) {
    EXPECT_EQ(parse_impl_kind(to_string(kind)), kind);
  }
  EXPECT_EQ(to_string(ImplKind::expert), "expert");
  EXPECT_EQ(parse_impl_kind("Reference"), std::nullopt);
  EXPECT_EQ(parse_impl_kind(""), std::nullopt);
}

TEST(TaskTest, LanguageNamesRoundTrip) {
  for (Language language : {Language::python, Language::cuda, Language::cpp}) {
    EXPECT_EQ(parse_language(to_string(language)), language);
  }
  EXPECT_EQ(to_string(Language::cpp), "cpp");
  EXPECT_EQ(parse_language("c++"), std::nullopt);
}

TEST(TaskTest, LanguageComesFromTheFileExtension) {
  EXPECT_EQ(language_of_file("dir/solution.py"), Language::python);
  EXPECT_EQ(language_of_file("solution.cu"), Language::cuda);
  EXPECT_EQ(language_of_file("solution.cpp"), Language::cpp);
  EXPECT_EQ(language_of_file("solution.cc"), Language::cpp);
  EXPECT_EQ(language_of_file("solution.cxx"), Language::cpp);
  EXPECT_EQ(language_of_file("solution.cuh"), std::nullopt);
  EXPECT_EQ(language_of_file("solution"), std::nullopt);
  EXPECT_EQ(language_of_file("dir.cu/solution.txt"), std::nullopt);
}

TEST(TaskTest, ImplementationFilesLiveInFixedPlaces) {
  Task task;
  task.dir = "tasks/scale_rows";
  EXPECT_EQ(task.implementation_file(ImplKind::reference), "tasks/scale_rows/reference.py");
  EXPECT_EQ(task.implementation_file(ImplKind::baseline), "tasks/scale_rows/baseline/solution.py");
  EXPECT_EQ(task.implementation_file(ImplKind::expert), "tasks/scale_rows/expert/solution.py");
  EXPECT_THROW(task.implementation_file(ImplKind::solution), std::invalid_argument);
}

TEST(TaskTest, ANativeExpertStandsInForAMissingSolutionPy) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("d2k_task_native_expert_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "expert");
  std::filesystem::create_directories(dir / "baseline");
  std::ofstream(dir / "expert" / "solution.cu") << "// native expert\n";
  std::ofstream(dir / "baseline" / "solution.py") << "def run(x):\n    return x\n";
  std::ofstream(dir / "baseline" / "solution.cu") << "// shadowed by solution.py\n";
  Task task;
  task.dir = dir;
  EXPECT_EQ(task.implementation_file(ImplKind::expert), dir / "expert" / "solution.cu");
  EXPECT_EQ(task.implementation_file(ImplKind::baseline), dir / "baseline" / "solution.py");
  std::filesystem::remove(dir / "expert" / "solution.cu");
  EXPECT_EQ(task.implementation_file(ImplKind::expert), dir / "expert" / "solution.py");
  std::filesystem::remove_all(dir);
}

TEST(TaskTest, FindsWorkloadByLabel) {
  Task task;
  task.workloads = {{"small", {{"label", "small"}}}, {"large", {{"label", "large"}}}};
  ASSERT_NE(task.find_workload("large"), nullptr);
  EXPECT_EQ(task.find_workload("large"), &task.workloads[1]);
  EXPECT_EQ(task.find_workload("medium"), nullptr);
}

TEST(TaskTest, OnlyListedInputsAreMutable) {
  InputRules rules;
  rules.dynamic_inputs = {"x", "state"};
  rules.mutable_inputs = {"state"};
  EXPECT_TRUE(rules.is_mutable("state"));
  EXPECT_FALSE(rules.is_mutable("x"));
}

TEST(TaskTest, GraderScaleWidensEveryGate) {
  Tolerance tolerance{.rel_norm_rtol = 0.006, .atol = 0.003, .rtol = 0.01, .grader_scale = 2.0};
  EXPECT_DOUBLE_EQ(tolerance.effective_rel_norm_rtol(), 0.012);
  EXPECT_DOUBLE_EQ(tolerance.effective_atol(), 0.006);
  EXPECT_DOUBLE_EQ(tolerance.effective_rtol(), 0.02);
}

}  // namespace
}  // namespace d2k::task
