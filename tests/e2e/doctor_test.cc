// `d2k doctor` on a machine without a usable GPU (where the e2e tests run): the toolchain is
// listed, no ceilings are measured or stored, and the exit status says so.

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "d2k_run.h"

namespace d2k::e2e {
namespace {

TEST(DoctorTest, WithoutADeviceListsTheToolchainAndMeasuresNothing) {
  const D2kRun run;
  const RunResult result = run.d2k({"doctor", "--json"});
  const nlohmann::json report = parse_evaluation(result);
  ASSERT_TRUE(report.is_object()) << result.err;
  if (!report.at("ceilings").is_null()) GTEST_SKIP() << "this machine has a usable CUDA device";
  EXPECT_EQ(result.status, 1) << result.err;
  EXPECT_FALSE(report.at("no_ceilings_reason").get<std::string>().empty());
  EXPECT_TRUE(report.at("stored_id").is_null());
  std::vector<std::string> names;
  for (const auto& component : report.at("toolchain")) {
    names.push_back(component.at("name"));
    const bool found = component.at("found");
    // A component is either a version or a reason.
    EXPECT_NE(found, component.at("version").get<std::string>().empty()) << component.dump();
    if (!found) EXPECT_FALSE(component.at("detail").get<std::string>().empty()) << component.dump();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"driver", "cuda", "nvcc", "host compiler", "python",
                                             "torch", "triton"}));
  // The embedded Python is D2K_PYTHON, which the CPU tests need with torch.
  EXPECT_TRUE(report.at("toolchain")[5].at("found")) << report.at("toolchain")[5].dump();
  EXPECT_FALSE(std::filesystem::exists(run.store()));  // nothing measured, nothing stored
}

TEST(DoctorTest, TheHumanFormSaysNoCeilingsWereMeasured) {
  const D2kRun run;
  const RunResult result = run.d2k({"doctor", "--no-store"});
  if (result.status == 0) GTEST_SKIP() << "this machine has a usable CUDA device";
  EXPECT_EQ(result.status, 1) << result.err;
  EXPECT_TRUE(contains(result.out, "toolchain\n")) << result.out;
  EXPECT_TRUE(contains(result.out, "no ceilings measured: ")) << result.out;
}

}  // namespace
}  // namespace d2k::e2e
