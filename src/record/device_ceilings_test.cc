#include "record/device_ceilings.h"

#include <gtest/gtest.h>

#include "record/toolchain_component.h"

namespace d2k::record {
namespace {

TEST(DeviceCeilingsTest, RoundTripsThroughJson) {
  DeviceCeilings c;
  c.created_at = "2026-11-30T00:00:00Z";
  c.matmul_flops_per_s = {{"bf16", 7.1e14}, {"fp16", 7.2e14}, {"fp32", 5.0e13}};
  c.copy_bytes_per_s = 4.0e12;
  c.matmul_size = 8192;
  c.copy_bytes = int64_t{1} << 30;
  const DeviceCeilings back = nlohmann::json(c).get<DeviceCeilings>();
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(c));
}

TEST(DeviceCeilingsTest, AMatrixCeilingExistsOnlyWhenMeasuredAndPositive) {
  DeviceCeilings c;
  c.matmul_flops_per_s = {{"bf16", 7.1e14}, {"fp16", 0.0}};
  EXPECT_EQ(c.matmul_ceiling("bf16"), 7.1e14);
  EXPECT_FALSE(c.matmul_ceiling("fp16").has_value());
  EXPECT_FALSE(c.matmul_ceiling("fp32").has_value());
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
