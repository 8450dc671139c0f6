#include "doctor/ceilings.h"

#include <map>
#include <stdexcept>

#include <gtest/gtest.h>

namespace d2k::doctor {
namespace {

class FakeProbe : public CeilingProbe {
 public:
  std::map<std::string, double> flops{{"bf16", 7.5e14}, {"fp16", 7.6e14}, {"fp32", 5.1e13}};
  double copy = 4.2e12;
  std::vector<std::string> asked;

  double matmul_flops_per_s(const std::string& math_dtype) override {
    asked.push_back(math_dtype);
    return flops.at(math_dtype);
  }
  double copy_bytes_per_s() override { return copy; }
  int64_t matmul_size() const override { return 4096; }
  int64_t copy_bytes() const override { return 1 << 20; }
};

TEST(MeasureCeilingsTest, MeasuresEveryMathDtypeAndTheCopyBandwidth) {
  FakeProbe probe;
  const record::DeviceCeilings ceilings = measure_ceilings(probe);
  EXPECT_EQ(probe.asked, (std::vector<std::string>{"bf16", "fp16", "fp32"}));
  EXPECT_EQ(ceilings.matmul_flops_per_s, probe.flops);
  EXPECT_EQ(ceilings.copy_bytes_per_s, 4.2e12);
  EXPECT_EQ(ceilings.matmul_size, 4096);
  EXPECT_EQ(ceilings.copy_bytes, 1 << 20);
  EXPECT_TRUE(ceilings.created_at.empty());  // the store stamps it
}

TEST(MeasureCeilingsTest, RefusesANonPositiveMeasurement) {
  FakeProbe probe;
  probe.flops["fp16"] = 0.0;
  EXPECT_THROW(measure_ceilings(probe), std::runtime_error);
  FakeProbe no_copy;
  no_copy.copy = -1.0;
  EXPECT_THROW(measure_ceilings(no_copy), std::runtime_error);
}

}  // namespace
}  // namespace d2k::doctor
