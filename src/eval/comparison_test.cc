#include "eval/comparison.h"

#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "protocol/tensor_file.h"
#include "util/temp_dir.h"

namespace d2k::eval {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

template <typename T>
std::vector<std::byte> bytes_of(const std::vector<T>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

task::Tolerance tolerance(double rel_norm_rtol, double atol = 0.0, double rtol = 0.0,
                          double grader_scale = 1.0) {
  task::Tolerance t;
  t.rel_norm_rtol = rel_norm_rtol;
  t.atol = atol;
  t.rtol = rtol;
  t.grader_scale = grader_scale;
  return t;
}

class ComparisonTest : public ::testing::Test {
 protected:
  // Writes `bytes` to a fresh file and describes it as a tensor named "out".
  TensorFile tensor(const std::string& dtype, std::vector<int64_t> shape,
                    const std::vector<std::byte>& bytes, bool on_device = false) {
    TensorFile file{"out", dtype, std::move(shape), on_device,
                    dir_ / ("t" + std::to_string(counter_++) + ".bin")};
    protocol::write_bytes(file.path, bytes);
    return file;
  }
  TensorFile f32(const std::vector<float>& values) {
    return tensor("float32", {static_cast<int64_t>(values.size())}, bytes_of(values));
  }
  TensorFile f64(const std::vector<double>& values) {
    return tensor("float64", {static_cast<int64_t>(values.size())}, bytes_of(values));
  }
  TensorFile f16(const std::vector<uint16_t>& bits) {
    return tensor("float16", {static_cast<int64_t>(bits.size())}, bytes_of(bits));
  }
  TensorFile bf16(const std::vector<uint16_t>& bits) {
    return tensor("bfloat16", {static_cast<int64_t>(bits.size())}, bytes_of(bits));
  }

  util::TempDir temp_{"d2k-comparison-"};
  fs::path dir_ = temp_.path();
  int counter_ = 0;
};

TEST_F(ComparisonTest, PassesWhenRelativeErrorIsWithinGate) {
  const TensorFile reference = f64({3.0, 4.0});
  const TensorFile candidate = f64({3.0, 4.0 + 5e-7});  // ||err|| / ||ref|| = 1e-7

  const Comparison result = compare_tensors(candidate, reference, tolerance(1e-6));

  EXPECT_TRUE(result.check.passed);
  EXPECT_EQ(result.reason_code, "");
  EXPECT_EQ(result.check.failure, "");
  EXPECT_EQ(result.check.name, "out");
  EXPECT_EQ(result.check.elements, 2);
  EXPECT_NEAR(result.check.rel_norm_error, 1e-7, 1e-12);
  EXPECT_NEAR(result.check.max_abs_error, 5e-7, 1e-12);
  EXPECT_EQ(result.check.nonfinite, 0);
}

TEST_F(ComparisonTest, FailsAboveGateWithOutputMismatchNamingTheGate) {
  const TensorFile reference = f64({3.0, 4.0});
  const TensorFile candidate = f64({3.0, 4.05});  // relative error 1e-2

  const Comparison result = compare_tensors(candidate, reference, tolerance(1e-3));

  EXPECT_FALSE(result.check.passed);
  EXPECT_EQ(result.reason_code, "output_mismatch");
  EXPECT_THAT(result.check.failure, HasSubstr("gate"));
  EXPECT_THAT(result.check.failure, HasSubstr("1.000e-03"));
  EXPECT_THAT(result.check.failure, HasSubstr("out"));
  EXPECT_NEAR(result.check.rel_norm_error, 1e-2, 1e-9);
}

TEST_F(ComparisonTest, ErrorExactlyAtGatePasses) {
  const TensorFile reference = f64({1.0, 0.0});
  const TensorFile candidate = f64({1.0, 0.5});  // error 0.5 / norm 1 = 0.5 exactly

  EXPECT_TRUE(compare_tensors(candidate, reference, tolerance(0.5)).check.passed);
  EXPECT_FALSE(compare_tensors(candidate, reference, tolerance(0.4999)).check.passed);
}

TEST_F(ComparisonTest, DtypeMismatchIsReportedBeforeValues) {
  const TensorFile reference = f32({1.0f, 2.0f});
  const TensorFile candidate = f64({1.0, 2.0});

  const Comparison result = compare_tensors(candidate, reference, tolerance(1.0));

  EXPECT_FALSE(result.check.passed);
  EXPECT_EQ(result.reason_code, "output_dtype");
  EXPECT_THAT(result.check.failure, HasSubstr("float64"));
  EXPECT_THAT(result.check.failure, HasSubstr("float32"));
}

TEST_F(ComparisonTest, ShapeMismatchIsReportedWithBothShapes) {
  const std::vector<float> values(6, 1.0f);
  const TensorFile reference = tensor("float32", {2, 3}, bytes_of(values));
  const TensorFile candidate = tensor("float32", {3, 2}, bytes_of(values));

  const Comparison result = compare_tensors(candidate, reference, tolerance(1.0));

  EXPECT_FALSE(result.check.passed);
  EXPECT_EQ(result.reason_code, "output_shape");
  EXPECT_THAT(result.check.failure, HasSubstr("[3, 2]"));
  EXPECT_THAT(result.check.failure, HasSubstr("[2, 3]"));
}

TEST_F(ComparisonTest, DeviceMismatchIsReported) {
  const std::vector<float> values{1.0f, 2.0f};
  const TensorFile reference = tensor("float32", {2}, bytes_of(values), /*on_device=*/true);
  const TensorFile candidate = tensor("float32", {2}, bytes_of(values), /*on_device=*/false);

  const Comparison result = compare_tensors(candidate, reference, tolerance(1.0));

  EXPECT_FALSE(result.check.passed);
  EXPECT_EQ(result.reason_code, "output_device");
  EXPECT_THAT(result.check.failure, HasSubstr("host"));
}

TEST_F(ComparisonTest, NanInCandidateIsNonfiniteEvenWithALooseGate) {
  const TensorFile reference = f32({1.0f, 2.0f, 3.0f, 4.0f});
  const TensorFile candidate = f32({1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f, 4.0f});

  const Comparison result = compare_tensors(candidate, reference, tolerance(1e9));

  EXPECT_FALSE(result.check.passed);
  EXPECT_EQ(result.reason_code, "nonfinite");
  EXPECT_EQ(result.check.nonfinite, 1);
  EXPECT_THAT(result.check.failure, HasSubstr("NaN/Inf"));
}

TEST_F(ComparisonTest, PositiveAndNegativeInfinityInCandidateAreNonfinite) {
  const float inf = std::numeric_limits<float>::infinity();
  const TensorFile reference = f32({1.0f, 2.0f, 3.0f});
  const TensorFile candidate = f32({inf, 2.0f, -inf});

  const Comparison result = compare_tensors(candidate, reference, tolerance(1e9));

  EXPECT_FALSE(result.check.passed);
  EXPECT_EQ(result.reason_code, "nonfinite");
  EXPECT_EQ(result.check.nonfinite, 2);
}

TEST_F(ComparisonTest, NanWhereTheReferenceHasNanIsNotCountedAsNonfinite) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const TensorFile reference = f32({1.0f, nan, 3.0f});
  const TensorFile candidate = f32({1.0f, nan, 3.0f});

  const Comparison result = compare_tensors(candidate, reference, tolerance(1e-6));

  EXPECT_TRUE(result.check.passed);
  EXPECT_EQ(result.check.nonfinite, 0);
  EXPECT_EQ(result.check.mismatches, 0);
}

TEST_F(ComparisonTest, FiniteValueWhereTheReferenceIsNonfiniteIsNonfinite) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const TensorFile reference = f32({1.0f, inf, nan, -inf});
  const TensorFile candidate = f32({1.0f, 3.0f, 0.0f, inf});  // -inf and +inf differ too

  const Comparison result = compare_tensors(candidate, reference, tolerance(1e9));

  EXPECT_FALSE(result.check.passed);
  EXPECT_EQ(result.reason_code, "nonfinite");
  EXPECT_EQ(result.check.nonfinite, 3);
}

TEST_F(ComparisonTest, MatchingInfinitiesPass) {
  const float inf = std::numeric_limits<float>::infinity();
  const TensorFile reference = f32({1.0f, inf, -inf});
  const TensorFile candidate = f32({1.0f, inf, -inf});

  EXPECT_TRUE(compare_tensors(candidate, reference, tolerance(1e-6)).check.passed);
}

TEST_F(ComparisonTest, ZeroReferenceAndZeroCandidatePass) {
  const TensorFile reference = f32({0.0f, 0.0f, 0.0f});
  const TensorFile candidate = f32({0.0f, -0.0f, 0.0f});

  const Comparison result = compare_tensors(candidate, reference, tolerance(1e-6));

  EXPECT_TRUE(result.check.passed);
  EXPECT_EQ(result.check.rel_norm_error, 0.0);
}

TEST_F(ComparisonTest, ZeroReferenceAndNonzeroCandidateFail) {
  const TensorFile reference = f32({0.0f, 0.0f, 0.0f});
  const TensorFile candidate = f32({0.0f, 1e-20f, 0.0f});

  const Comparison result = compare_tensors(candidate, reference, tolerance(1e9));

  EXPECT_FALSE(result.check.passed);
  EXPECT_EQ(result.reason_code, "output_mismatch");
  EXPECT_TRUE(std::isinf(result.check.rel_norm_error));
}

TEST_F(ComparisonTest, DecodesBfloat16) {
  // 1.0 = 0x3F80, -2.0 = 0xC000, 1.5 = 0x3FC0, 0.0 = 0x0000.
  const TensorFile reference = bf16({0x3F80, 0xC000});
  const TensorFile same = bf16({0x3F80, 0xC000});
  const TensorFile off = bf16({0x3FC0, 0x0000});  // 1.5, 0.0: errors 0.5 and 2

  const Comparison exact = compare_tensors(same, reference, tolerance(1e-6));
  const Comparison wrong = compare_tensors(off, reference, tolerance(1e-6));

  EXPECT_TRUE(exact.check.passed);
  EXPECT_EQ(exact.check.rel_norm_error, 0.0);
  EXPECT_FALSE(wrong.check.passed);
  EXPECT_EQ(wrong.check.max_abs_error, 2.0);
  // sqrt((0.25 + 4) / (1 + 4))
  EXPECT_DOUBLE_EQ(wrong.check.rel_norm_error, std::sqrt(4.25 / 5.0));
}

TEST_F(ComparisonTest, DecodesFloat16NormalValues) {
  // 1.0 = 0x3C00, -2.0 = 0xC000, 1.5 = 0x3E00, 65504 (largest half) = 0x7BFF.
  const TensorFile reference = f16({0x3C00, 0xC000, 0x7BFF});
  const TensorFile candidate = f16({0x3E00, 0xC000, 0x7BFF});

  const Comparison result = compare_tensors(candidate, reference, tolerance(1e-6));

  EXPECT_EQ(result.check.max_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(result.check.rel_norm_error,
                   std::sqrt(0.25 / (1.0 + 4.0 + 65504.0 * 65504.0)));
}

TEST_F(ComparisonTest, DecodesFloat16Subnormals) {
  // 0x0001 = 2^-24 (smallest subnormal), 0x03FF = 1023 * 2^-24 (largest), 0x8001 = -2^-24.
  const TensorFile reference = f16({0x3C00, 0x0000, 0x0000, 0x0000});
  const TensorFile smallest = f16({0x3C00, 0x0001, 0x0000, 0x0000});
  const TensorFile largest = f16({0x3C00, 0x0000, 0x03FF, 0x0000});
  const TensorFile negative = f16({0x3C00, 0x0000, 0x0000, 0x8001});

  EXPECT_EQ(compare_tensors(smallest, reference, tolerance(1.0)).check.max_abs_error,
            std::ldexp(1.0, -24));
  EXPECT_EQ(compare_tensors(largest, reference, tolerance(1.0)).check.max_abs_error,
            1023.0 * std::ldexp(1.0, -24));
  EXPECT_EQ(compare_tensors(negative, reference, tolerance(1.0)).check.max_abs_error,
            std::ldexp(1.0, -24));
}

TEST_F(ComparisonTest, Float16InfinityAndNanInCandidateAreNonfinite) {
  const TensorFile reference = f16({0x3C00, 0x3C00, 0x3C00});
  const TensorFile candidate = f16({0x7C00, 0xFC00, 0x7E00});  // +inf, -inf, NaN

  const Comparison result = compare_tensors(candidate, reference, tolerance(1e9));

  EXPECT_EQ(result.reason_code, "nonfinite");
  EXPECT_EQ(result.check.nonfinite, 3);
}

TEST_F(ComparisonTest, Int64RequiresAnExactMatchWhateverTheGate) {
  const std::vector<int64_t> values{1, -2, 3, 1'000'000};
  std::vector<int64_t> off_by_one = values;
  off_by_one[3] += 1;
  const TensorFile reference = tensor("int64", {4}, bytes_of(values));
  const TensorFile same = tensor("int64", {4}, bytes_of(values));
  const TensorFile differs = tensor("int64", {4}, bytes_of(off_by_one));

  const Comparison exact = compare_tensors(same, reference, tolerance(1e-6));
  const Comparison wrong = compare_tensors(differs, reference, tolerance(1.0));

  EXPECT_TRUE(exact.check.passed);
  EXPECT_FALSE(wrong.check.passed);
  EXPECT_EQ(wrong.reason_code, "output_mismatch");
  EXPECT_THAT(wrong.check.failure, HasSubstr("exact match required"));
  EXPECT_EQ(wrong.check.mismatches, 1);
}

TEST_F(ComparisonTest, BoolRequiresAnExactMatch) {
  const std::vector<uint8_t> values{1, 0, 1};
  const std::vector<uint8_t> flipped{1, 1, 1};
  const TensorFile reference = tensor("bool", {3}, bytes_of(values));
  const TensorFile candidate = tensor("bool", {3}, bytes_of(flipped));

  const Comparison result = compare_tensors(candidate, reference, tolerance(1.0));

  EXPECT_FALSE(result.check.passed);
  EXPECT_EQ(result.reason_code, "output_mismatch");
}

// Integer outputs must match exactly; the task's atol/rtol only count mismatches for floats.
TEST_F(ComparisonTest, Int32RequiresAnExactMatchEvenWithALooseRtol) {
  const TensorFile reference = tensor("int32", {1}, bytes_of(std::vector<int32_t>{1000}));
  const TensorFile candidate = tensor("int32", {1}, bytes_of(std::vector<int32_t>{1005}));

  const Comparison result = compare_tensors(candidate, reference, tolerance(0.01, 0.01, 0.01));

  EXPECT_FALSE(result.check.passed);
  EXPECT_EQ(result.reason_code, "output_mismatch");
}

// int64 values above 2^53 differ by one here, which a comparison in double would not see.
TEST_F(ComparisonTest, Int64AboveTwoToThe53RequiresAnExactMatch) {
  const int64_t big = int64_t{1} << 53;
  const TensorFile reference = tensor("int64", {1}, bytes_of(std::vector<int64_t>{big}));
  const TensorFile candidate = tensor("int64", {1}, bytes_of(std::vector<int64_t>{big + 1}));

  const Comparison result = compare_tensors(candidate, reference, tolerance(1e-6));

  EXPECT_FALSE(result.check.passed);
  EXPECT_EQ(result.reason_code, "output_mismatch");
}

TEST_F(ComparisonTest, AtolRtolMismatchesAreCountedButDoNotDecide) {
  const TensorFile reference = f64({1.0, 1.0, 1.0, 1.0});
  const TensorFile candidate = f64({1.0, 1.0 + 1e-5, 1.0, 1.0 - 1e-5});

  const Comparison result =
      compare_tensors(candidate, reference, tolerance(1e-3, /*atol=*/1e-7, /*rtol=*/1e-7));

  EXPECT_TRUE(result.check.passed);
  EXPECT_EQ(result.check.mismatches, 2);
}

TEST_F(ComparisonTest, AtolAndRtolBothWidenTheElementwiseTest) {
  const TensorFile reference = f64({100.0, 0.0});
  const TensorFile candidate = f64({100.5, 0.05});

  // 0.5 <= 0.1 + 0.01 * 100 and 0.05 <= 0.1 + 0.01 * 0: no mismatch.
  EXPECT_EQ(compare_tensors(candidate, reference, tolerance(1.0, 0.1, 0.01)).check.mismatches, 0);
  // Without rtol the first element is outside; without atol the second one is.
  EXPECT_EQ(compare_tensors(candidate, reference, tolerance(1.0, 0.1, 0.0)).check.mismatches, 1);
  EXPECT_EQ(compare_tensors(candidate, reference, tolerance(1.0, 0.0, 0.01)).check.mismatches, 1);
}

TEST_F(ComparisonTest, GraderScaleMultipliesTheGate) {
  const TensorFile reference = f64({1.0});
  const TensorFile candidate = f64({1.015});

  const Comparison scaled = compare_tensors(candidate, reference, tolerance(0.01, 0, 0, 2.0));
  const Comparison unscaled = compare_tensors(candidate, reference, tolerance(0.01, 0, 0, 1.0));

  EXPECT_TRUE(scaled.check.passed);
  EXPECT_FALSE(unscaled.check.passed);
  EXPECT_EQ(unscaled.reason_code, "output_mismatch");
  EXPECT_THAT(unscaled.check.failure, HasSubstr("1.000e-02"));
}

TEST_F(ComparisonTest, GraderScaleAlsoScalesAtolAndRtol) {
  const TensorFile reference = f64({1.0});
  const TensorFile candidate = f64({1.015});

  EXPECT_EQ(compare_tensors(candidate, reference, tolerance(1.0, 0.01, 0.0, 1.0)).check.mismatches,
            1);
  EXPECT_EQ(compare_tensors(candidate, reference, tolerance(1.0, 0.01, 0.0, 2.0)).check.mismatches,
            0);
}

TEST_F(ComparisonTest, FileOfTheWrongSizeIsAHarnessError) {
  const TensorFile reference = f32({1.0f, 2.0f});
  const TensorFile candidate =
      tensor("float32", {2}, bytes_of(std::vector<float>{1.0f, 2.0f, 3.0f}));

  const Comparison result = compare_tensors(candidate, reference, tolerance(1.0));

  EXPECT_FALSE(result.check.passed);
  EXPECT_EQ(result.reason_code, "harness_error");
}

TEST_F(ComparisonTest, EmptyTensorsPass) {
  const TensorFile reference = tensor("float32", {0, 4}, {});
  const TensorFile candidate = tensor("float32", {0, 4}, {});

  const Comparison result = compare_tensors(candidate, reference, tolerance(1e-6));

  EXPECT_TRUE(result.check.passed);
  EXPECT_EQ(result.check.elements, 0);
}

// Three million elements are split across threads; the totals must equal one pass over all
// elements, including the elements at the split boundaries.
TEST_F(ComparisonTest, LargeTensorSplitAcrossThreadsMatchesASingleThreadedPass) {
  constexpr int64_t n = 3'000'000;
  std::vector<float> reference_values(n);
  std::vector<float> candidate_values(n);
  for (int64_t i = 0; i < n; ++i) {
    reference_values[i] = static_cast<float>(std::sin(0.001 * static_cast<double>(i)) + 1.5);
    candidate_values[i] = reference_values[i];
    if (i % 7 == 0) candidate_values[i] += 1e-3f;
    if (i % 100'003 == 0) candidate_values[i] -= 0.25f;
  }
  // Perturb the elements on each side of every plausible split point.
  for (int64_t parts = 2; parts <= 64; ++parts) {
    for (int64_t t = 1; t < parts; ++t) {
      const int64_t boundary = n * t / parts;
      candidate_values[boundary - 1] = reference_values[boundary - 1] + 0.5f;
      candidate_values[boundary] = reference_values[boundary] - 0.125f;
    }
  }
  candidate_values[n - 1] = reference_values[n - 1] + 0.75f;
  const auto tol = tolerance(1e-2, /*atol=*/1e-4, /*rtol=*/1e-4);

  double error_squared = 0.0;
  double reference_squared = 0.0;
  double max_abs = 0.0;
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double r = reference_values[i];
    const double diff = std::abs(static_cast<double>(candidate_values[i]) - r);
    error_squared += diff * diff;
    reference_squared += r * r;
    max_abs = std::max(max_abs, diff);
    if (diff > tol.atol + tol.rtol * std::abs(r)) ++mismatches;
  }
  const double expected_rel = std::sqrt(error_squared / reference_squared);

  const Comparison result = compare_tensors(f32(candidate_values), f32(reference_values), tol);

  EXPECT_EQ(result.check.elements, n);
  EXPECT_EQ(result.check.mismatches, mismatches);
  EXPECT_EQ(result.check.max_abs_error, max_abs);
  EXPECT_EQ(result.check.max_abs_error, 0.75);
  EXPECT_NEAR(result.check.rel_norm_error, expected_rel, expected_rel * 1e-9);
  EXPECT_EQ(result.check.nonfinite, 0);
  EXPECT_EQ(result.check.passed, expected_rel <= 1e-2);
}

TEST_F(ComparisonTest, LargeTensorCountsNonfiniteValuesInEveryThreadsRange) {
  constexpr int64_t n = 3'000'000;
  std::vector<float> reference_values(n, 1.0f);
  std::vector<float> candidate_values(n, 1.0f);
  const std::vector<int64_t> positions{0, n / 3, n / 2 - 1, n / 2, 2 * n / 3, n - 1};
  for (int64_t i : positions) candidate_values[i] = std::numeric_limits<float>::quiet_NaN();

  const Comparison result =
      compare_tensors(f32(candidate_values), f32(reference_values), tolerance(1e-6));

  EXPECT_EQ(result.reason_code, "nonfinite");
  EXPECT_EQ(result.check.nonfinite, static_cast<int64_t>(positions.size()));
}

}  // namespace
}  // namespace d2k::eval
