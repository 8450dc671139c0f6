#include "doctor/ceilings.h"

#include <map>
#include <stdexcept>

#include <gtest/gtest.h>

#include "doctor/datasheet.h"

namespace d2k::doctor {
namespace {

class FakeProbe : public CeilingProbe {
 public:
  std::map<std::string, record::Ceiling> flops{{"bf16", {7.5e14, "cuBLAS"}},
                                               {"fp16", {7.6e14, "Triton matmul"}},
                                               {"fp32", {5.1e13, "cuBLAS"}}};
  record::Ceiling read_rate{4.4e12, "Triton streaming read"};
  record::Ceiling copy_rate{4.2e12, "driver copy"};
  std::vector<std::string> asked;

  record::Ceiling matmul(const std::string& math_dtype) override {
    asked.push_back(math_dtype);
    return flops.at(math_dtype);
  }
  record::Ceiling read() override { return read_rate; }
  record::Ceiling write() override { return {4.3e12, "fill"}; }
  record::Ceiling copy() override { return copy_rate; }
  int64_t matmul_size() const override { return 4096; }
  int64_t stream_bytes() const override { return 1 << 20; }
};

TEST(MeasureCeilingsTest, MeasuresEveryMathDtypeAndEveryStream) {
  FakeProbe probe;
  const record::DeviceCeilings ceilings = measure_ceilings(probe, "some GPU");
  EXPECT_EQ(probe.asked, (std::vector<std::string>{"bf16", "fp16", "fp32"}));
  EXPECT_EQ(ceilings.matmul.at("fp16").source, "Triton matmul");
  EXPECT_EQ(ceilings.read.rate, 4.4e12);
  EXPECT_EQ(ceilings.write.source, "fill");
  EXPECT_EQ(ceilings.copy.rate, 4.2e12);
  EXPECT_EQ(ceilings.matmul_size, 4096);
  EXPECT_EQ(ceilings.stream_bytes, 1 << 20);
  EXPECT_TRUE(ceilings.created_at.empty());  // the store stamps it
  EXPECT_FALSE(ceilings.datasheet_bandwidth.has_value());  // d2k does not know "some GPU"
}

TEST(MeasureCeilingsTest, AKnownDeviceGetsItsDatasheetAndTheBoundTakesTheHigher) {
  FakeProbe probe;
  const record::DeviceCeilings ceilings = measure_ceilings(probe, "NVIDIA H200");
  ASSERT_TRUE(ceilings.datasheet_bandwidth.has_value());
  EXPECT_EQ(ceilings.bandwidth_ceiling()->rate, 4.8e12);
  EXPECT_EQ(ceilings.bandwidth_ceiling()->source, "datasheet (NVIDIA H200 SXM)");
  EXPECT_EQ(ceilings.matmul_ceiling("bf16")->rate, 989.4e12);
}

TEST(MeasureCeilingsTest, RefusesANonPositiveMeasurement) {
  FakeProbe probe;
  probe.flops["fp16"] = {0.0, "cuBLAS"};
  EXPECT_THROW(measure_ceilings(probe, "x"), std::runtime_error);
  FakeProbe no_read;
  no_read.read_rate = {-1.0, "torch.sum"};
  EXPECT_THROW(measure_ceilings(no_read, "x"), std::runtime_error);
}

TEST(DatasheetTest, KnowsTheH200AndH100ByTheirCudaNames) {
  EXPECT_EQ(datasheet_for("NVIDIA H200")->bandwidth.rate, 4.8e12);
  EXPECT_EQ(datasheet_for("NVIDIA H100 80GB HBM3")->bandwidth.rate, 3.35e12);
  EXPECT_EQ(datasheet_for("NVIDIA H200")->matmul.at("fp32").rate, 66.9e12);
  EXPECT_EQ(datasheet_for("NVIDIA H200")->matmul.at("fp8").rate, 1978.9e12);
  EXPECT_FALSE(datasheet_for("NVIDIA H200 NVL").has_value());
}

}  // namespace
}  // namespace d2k::doctor
