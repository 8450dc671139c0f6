// The store's speed-of-light rows: device ceilings per environment and each workload's bound.
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "store/store.h"

namespace d2k::store {
namespace {

class SpeedOfLightStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "d2k_sol_store_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Store open() const { return Store::open(dir_ / "store.sqlite"); }

  std::filesystem::path dir_;
};

record::Environment environment(const std::string& device_name, const std::string& torch) {
  return {.device_name = device_name, .driver = "580.1", .cuda = "13.0", .torch = torch,
          .triton = "3.4", .python = "3.12", .host = "node", .d2k_version = "0.1.0"};
}

record::DeviceCeilings ceilings(const std::string& created_at, double bf16) {
  record::DeviceCeilings c;
  c.created_at = created_at;
  c.matmul = {{"bf16", {bf16, "cuBLAS"}}, {"fp16", {bf16 * 1.01, "cuBLAS"}}};
  c.copy = {4.1e12, "driver copy"};
  c.matmul_size = 8192;
  c.stream_bytes = int64_t{1} << 30;
  return c;
}

TEST_F(SpeedOfLightStoreTest, NoCeilingsBeforeDoctorRan) {
  EXPECT_FALSE(open().ceilings().latest("NVIDIA H200").has_value());
}

TEST_F(SpeedOfLightStoreTest, NewestCeilingsOfTheDeviceWinWhateverItsSoftware) {
  Store store = open();
  auto old = ceilings("2026-11-01T00:00:00Z", 6.0e14);
  auto newer = ceilings("2026-11-02T00:00:00Z", 7.0e14);
  auto other_device = ceilings("2026-11-03T00:00:00Z", 3.0e14);
  const std::vector<record::ToolchainComponent> toolchain{{"nvcc", "13.0", "/usr/local/cuda/bin/nvcc"},
                                                          {"triton", "", "not importable"}};
  store.ceilings().save(environment("NVIDIA H200", "2.8"), old, toolchain);
  const int64_t id = store.ceilings().save(environment("NVIDIA H200", "2.9"), newer, toolchain);
  store.ceilings().save(environment("NVIDIA H100", "2.9"), other_device, {});
  EXPECT_GT(id, 0);

  const auto loaded = store.ceilings().latest("NVIDIA H200");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->created_at, "2026-11-02T00:00:00Z");
  EXPECT_EQ(nlohmann::json(loaded->matmul), nlohmann::json(newer.matmul));
  EXPECT_EQ(loaded->copy.rate, 4.1e12);
  EXPECT_EQ(loaded->matmul_size, 8192);
  EXPECT_EQ(loaded->stream_bytes, int64_t{1} << 30);
  EXPECT_EQ(loaded->matmul_ceiling("bf16")->rate, 7.0e14);
  EXPECT_FALSE(loaded->matmul_ceiling("fp32").has_value());
}

TEST_F(SpeedOfLightStoreTest, SaveStampsMissingCreatedAt) {
  Store store = open();
  record::DeviceCeilings c = ceilings("", 1.0e14);
  store.ceilings().save(environment("gpu", "2.9"), c, {});
  EXPECT_FALSE(c.created_at.empty());
  EXPECT_EQ(store.ceilings().latest("gpu")->created_at, c.created_at);
}

TEST_F(SpeedOfLightStoreTest, WorkloadBoundRoundTripsAndAbsentStaysAbsent) {
  Store store = open();
  record::EvaluationResult result;
  result.task_id = "muon";
  result.impl_kind = "baseline";
  result.device = "cuda";
  result.environment = environment("NVIDIA H200", "2.9");
  record::WorkloadResult bounded;
  bounded.workload = "w0";
  bounded.verdict = record::Verdict::passed;
  bounded.sol = record::SpeedOfLight{.flops = 1.7e13, .bytes = 1.4e9, .math_dtype = "fp16",
                                     .peak_flops_per_s = 7e14, .peak_bytes_per_s = 4e12,
                                     .t_sol_s = 1.7e13 / 7e14, .fraction = 0.42};
  record::WorkloadResult without_latency = bounded;
  without_latency.workload = "w1";
  without_latency.sol->fraction = std::nan("");
  record::WorkloadResult unbounded;
  unbounded.workload = "w2";
  result.workloads = {bounded, without_latency, unbounded};
  const auto loaded = store.evaluations().load(store.evaluations().save(result));
  ASSERT_TRUE(loaded.has_value());
  ASSERT_TRUE(loaded->workloads[0].sol.has_value());
  const record::SpeedOfLight& sol = *loaded->workloads[0].sol;
  EXPECT_EQ(sol.flops, 1.7e13);
  EXPECT_EQ(sol.bytes, 1.4e9);
  EXPECT_EQ(sol.math_dtype, "fp16");
  EXPECT_EQ(sol.peak_flops_per_s, 7e14);
  EXPECT_EQ(sol.peak_bytes_per_s, 4e12);
  EXPECT_EQ(sol.t_sol_s, 1.7e13 / 7e14);
  EXPECT_EQ(sol.fraction, 0.42);
  ASSERT_TRUE(loaded->workloads[1].sol.has_value());
  EXPECT_TRUE(std::isnan(loaded->workloads[1].sol->fraction));
  EXPECT_FALSE(loaded->workloads[2].sol.has_value());
}

}  // namespace
}  // namespace d2k::store
