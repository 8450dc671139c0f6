#include "doctor/toolchain_survey.h"

#include <map>
#include <stdexcept>

#include <gtest/gtest.h>

namespace d2k::doctor {
namespace {

// Programs answer from a table keyed by their command line; anything else fails to start.
ProgramRunner scripted(std::map<std::string, ProgramRun> answers) {
  return [answers = std::move(answers)](const std::vector<std::string>& argv) {
    std::string line;
    for (const auto& word : argv) line += (line.empty() ? "" : " ") + word;
    const auto it = answers.find(line);
    return it != answers.end() ? it->second : ProgramRun{false, "cannot run " + argv[0]};
  };
}

SurveyInputs inputs() {
  return {.nvcc = "/usr/local/cuda/bin/nvcc", .host_compiler = "c++",
          .python = "/usr/bin/python3", .driver_cuda_version = "13.0", .no_device_reason = ""};
}

const record::ToolchainComponent& find(const std::vector<record::ToolchainComponent>& all,
                                       const std::string& name) {
  for (const auto& component : all) {
    if (component.name == name) return component;
  }
  throw std::logic_error("no component " + name);
}

TEST(ToolchainSurveyTest, ReadsEachVersion) {
  const auto toolchain = survey_toolchain(
      inputs(),
      scripted({
          {"nvidia-smi --query-gpu=driver_version --format=csv,noheader", {true, "580.95.05\n"}},
          {"/usr/local/cuda/bin/nvcc --version",
           {true, "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 13.0, "
                  "V13.0.88\nBuild cuda_13.0\n"}},
          {"c++ --version", {true, "c++ (Debian 12.2.0-14) 12.2.0\nCopyright\n"}},
          {"/usr/bin/python3 --version", {true, "Python 3.11.2\n"}},
          {"/usr/bin/python3 -c import torch; print(torch.__version__)",
           {true, "UserWarning: something\n2.9.0+cu130\n"}},
          {"/usr/bin/python3 -c import triton; print(triton.__version__)", {true, "3.5.0\n"}},
      }));
  ASSERT_EQ(toolchain.size(), 7u);
  EXPECT_EQ(find(toolchain, "driver").version, "580.95.05");
  EXPECT_EQ(find(toolchain, "cuda").version, "13.0");
  EXPECT_EQ(find(toolchain, "nvcc").version, "13.0 (V13.0.88)");
  EXPECT_EQ(find(toolchain, "host compiler").version, "c++ (Debian 12.2.0-14) 12.2.0");
  EXPECT_EQ(find(toolchain, "python").version, "Python 3.11.2");
  EXPECT_EQ(find(toolchain, "torch").version, "2.9.0+cu130");
  EXPECT_EQ(find(toolchain, "triton").version, "3.5.0");
  for (const auto& component : toolchain) EXPECT_TRUE(component.found()) << component.name;
}

TEST(ToolchainSurveyTest, SaysWhyAComponentIsMissing) {
  SurveyInputs no_device = inputs();
  no_device.driver_cuda_version.reset();
  no_device.no_device_reason = "libcuda.so.1 cannot be opened";
  const auto toolchain = survey_toolchain(
      no_device,
      scripted({
          {"/usr/local/cuda/bin/nvcc --version", {true, "nvcc without a release line\n"}},
          {"/usr/bin/python3 -c import triton; print(triton.__version__)",
           {false, "Traceback\nModuleNotFoundError: No module named 'triton'\n"}},
      }));
  EXPECT_FALSE(find(toolchain, "driver").found());
  EXPECT_EQ(find(toolchain, "driver").detail,
            "`nvidia-smi --query-gpu=driver_version --format=csv,noheader` failed: cannot run "
            "nvidia-smi");
  EXPECT_EQ(find(toolchain, "cuda").detail, "libcuda.so.1 cannot be opened");
  EXPECT_FALSE(find(toolchain, "cuda").found());
  EXPECT_EQ(find(toolchain, "nvcc").detail,
            "`/usr/local/cuda/bin/nvcc --version` printed no version: nvcc without a release line");
  EXPECT_EQ(find(toolchain, "triton").detail,
            "`/usr/bin/python3 -c 'import triton; print(triton.__version__)'` failed: "
            "ModuleNotFoundError: No module named 'triton'");
}

}  // namespace
}  // namespace d2k::doctor
