#include "record/device_ceilings.h"

#include <gtest/gtest.h>

#include "record/toolchain_component.h"

namespace d2k::record {
namespace {

DeviceCeilings measured() {
  DeviceCeilings c;
  c.created_at = "2026-11-30T00:00:00Z";
  c.matmul = {{"bf16", {7.1e14, "cuBLAS"}}, {"fp16", {7.2e14, "Triton"}}, {"fp32", {5.0e13, "cuBLAS"}}};
  c.read = {4.4e12, "Triton streaming read"};
  c.write = {4.3e12, "fill"};
  c.copy = {4.1e12, "driver copy"};
  c.matmul_size = 8192;
  c.stream_bytes = int64_t{1} << 32;
  return c;
}

TEST(DeviceCeilingsTest, RoundTripsThroughJson) {
  DeviceCeilings c = measured();
  c.datasheet_matmul = {{"bf16", {9.89e14, "datasheet"}}};
  c.datasheet_bandwidth = Ceiling{4.8e12, "datasheet"};
  const DeviceCeilings back = nlohmann::json(c).get<DeviceCeilings>();
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(c));
}

TEST(DeviceCeilingsTest, TheBoundUsesTheHighestMeasuredOrDatasheetRate) {
  DeviceCeilings c = measured();
  ASSERT_TRUE(c.bandwidth_ceiling());
  EXPECT_EQ(c.bandwidth_ceiling()->rate, 4.4e12);
  EXPECT_EQ(c.bandwidth_ceiling()->source, "Triton streaming read");
  c.datasheet_bandwidth = Ceiling{4.8e12, "datasheet (NVIDIA H200 SXM)"};
  EXPECT_EQ(c.bandwidth_ceiling()->rate, 4.8e12);
  EXPECT_EQ(c.bandwidth_ceiling()->source, "datasheet (NVIDIA H200 SXM)");
  c.datasheet_matmul = {{"bf16", {9.89e14, "datasheet"}}, {"fp16", {1e14, "datasheet"}}};
  EXPECT_EQ(c.matmul_ceiling("bf16")->rate, 9.89e14);
  EXPECT_EQ(c.matmul_ceiling("fp16")->source, "Triton");  // a measurement above the datasheet
}

TEST(DeviceCeilingsTest, AMatrixCeilingExistsOnlyWhenPositive) {
  DeviceCeilings c;
  c.matmul = {{"bf16", {7.1e14, "cuBLAS"}}, {"fp16", {0.0, "cuBLAS"}}};
  EXPECT_EQ(c.matmul_ceiling("bf16")->rate, 7.1e14);
  EXPECT_FALSE(c.matmul_ceiling("fp16").has_value());
  EXPECT_FALSE(c.matmul_ceiling("fp32").has_value());
  EXPECT_FALSE(DeviceCeilings{}.bandwidth_ceiling().has_value());
}

TEST(DeviceCeilingsTest, ReadsCeilingsStoredBeforeTheReadAndWriteProbes) {
  const nlohmann::json old = {{"matmul_flops_per_s", {{"bf16", 7.0e14}}},
                              {"copy_bytes_per_s", 4.2e12},
                              {"matmul_size", 8192},
                              {"copy_bytes", 1 << 30}};
  const DeviceCeilings c = old.get<DeviceCeilings>();
  EXPECT_EQ(c.matmul_ceiling("bf16")->rate, 7.0e14);
  EXPECT_EQ(c.bandwidth_ceiling()->rate, 4.2e12);
}

TEST(ToolchainComponentTest, FoundMeansItHasAVersion) {
  const ToolchainComponent missing{"triton", "", "No module named 'triton'"};
  const nlohmann::json j = missing;
  EXPECT_EQ(j.at("found"), false);
  EXPECT_EQ(j.get<ToolchainComponent>().detail, "No module named 'triton'");
  EXPECT_TRUE((ToolchainComponent{"torch", "2.9.0", "python3"}).found());
}

}  // namespace
}  // namespace d2k::record
