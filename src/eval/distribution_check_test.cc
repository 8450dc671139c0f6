#include "eval/distribution_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace d2k::eval {
namespace {

using ::testing::HasSubstr;

// A target as the reference reports it: float32 probabilities and a bool support, [rows, vocab].
struct Target {
  int64_t rows = 0;
  int64_t vocab = 0;
  std::vector<float> probabilities;
  std::vector<uint8_t> support;

  TargetDistribution view() const {
    const TensorFile p{"target_probabilities", "float32", {rows, vocab}, false, {}};
    const TensorFile s{"target_support", "bool", {rows, vocab}, false, {}};
    return TargetDistribution(p, reinterpret_cast<const std::byte*>(probabilities.data()), s,
                              reinterpret_cast<const std::byte*>(support.data()));
  }
};

// Top-k/top-p sampling as the sampling task defines it (value-based ties, both limits on the
// same softmax): the kept distribution of each row in double precision.
std::vector<std::vector<double>> kept_distribution(const std::vector<double>& logits, int64_t rows,
                                                   int64_t vocab, double temperature, int64_t k,
                                                   double p) {
  std::vector<std::vector<double>> result;
  for (int64_t row = 0; row < rows; ++row) {
    std::vector<double> q(vocab);
    double top = -INFINITY;
    for (int64_t j = 0; j < vocab; ++j) top = std::max(top, logits[row * vocab + j] / temperature);
    double total = 0.0;
    for (int64_t j = 0; j < vocab; ++j) total += q[j] = std::exp(logits[row * vocab + j] / temperature - top);
    for (double& value : q) value /= total;
    std::vector<double> sorted = q;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    std::vector<double> kept(vocab, 0.0);
    double kept_total = 0.0;
    for (int64_t j = 0; j < vocab; ++j) {
      const auto first = std::lower_bound(sorted.begin(), sorted.end(), q[j], std::greater<>()) - sorted.begin();
      const double above = std::accumulate(sorted.begin(), sorted.begin() + first, 0.0);
      if (first < k && (p >= 1.0 || above < p)) kept_total += kept[j] = q[j];
    }
    for (double& value : kept) value /= kept_total;
    result.push_back(std::move(kept));
  }
  return result;
}

Target to_target(const std::vector<std::vector<double>>& kept) {
  Target target;
  target.rows = static_cast<int64_t>(kept.size());
  target.vocab = static_cast<int64_t>(kept.front().size());
  for (const auto& row : kept) {
    for (double value : row) {
      target.probabilities.push_back(static_cast<float>(value));
      target.support.push_back(value > 0.0 ? 1 : 0);
    }
  }
  return target;
}

// Logits like the sampling task's: a Gaussian bulk and a few boosted head tokens per row.
std::vector<double> model_logits(int64_t rows, int64_t vocab, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> bulk(0.0, 2.0);
  std::uniform_int_distribution<int64_t> token(0, vocab - 1);
  std::uniform_real_distribution<double> boost(2.0, 10.0);
  std::vector<double> logits(rows * vocab);
  for (double& value : logits) value = bulk(gen);
  for (int64_t row = 0; row < rows; ++row) {
    for (int i = 0; i < 8; ++i) logits[row * vocab + token(gen)] += boost(gen);
  }
  return logits;
}

// `draws` exact samples per row (draw-major), from `kept`.
std::vector<int64_t> draw(const std::vector<std::vector<double>>& kept, int64_t draws, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::discrete_distribution<int64_t>> rows;
  for (const auto& row : kept) rows.emplace_back(row.begin(), row.end());
  std::vector<int64_t> samples;
  for (int64_t d = 0; d < draws; ++d) {
    for (auto& row : rows) samples.push_back(row(gen));
  }
  return samples;
}

constexpr double kSignificance = 1e-6;  // the sampling task's configured significance
constexpr int64_t kRows = 64;
constexpr int64_t kVocab = 2000;
constexpr int64_t kDraws = 1000;  // the task's draws at batch >= 16

class SamplerPowerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    logits_ = model_logits(kRows, kVocab, 7);
    kept_ = kept_distribution(logits_, kRows, kVocab, 0.6, 20, 0.95);
    target_ = to_target(kept_);
  }
  FitResult fit(const std::vector<int64_t>& samples) const {
    return chi_square_fit(target_.view(), samples, kDraws);
  }
  std::vector<double> logits_;
  std::vector<std::vector<double>> kept_;
  Target target_;
};

TEST_F(SamplerPowerTest, AcceptsExactSamplesForEverySeed) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto samples = draw(kept_, kDraws, seed);
    EXPECT_FALSE(check_membership(target_.view(), samples, kDraws));
    const FitResult result = fit(samples);
    EXPECT_GT(result.degrees_of_freedom, kRows) << "seed " << seed;
    EXPECT_GE(result.p_value, kSignificance) << "seed " << seed << " chi2 " << result.chi_square;
  }
}

TEST_F(SamplerPowerTest, RejectsATemperatureTenPercentOff) {
  const auto hotter = kept_distribution(logits_, kRows, kVocab, 0.66, 20, 0.95);
  const FitResult result = fit(draw(hotter, kDraws, 3));
  EXPECT_LT(result.p_value, kSignificance) << "chi2 " << result.chi_square << " on "
                                           << result.degrees_of_freedom;
}

TEST_F(SamplerPowerTest, RejectsASamplerThatIgnoresTopP) {
  const auto top_k_only = kept_distribution(logits_, kRows, kVocab, 0.6, 20, 1.0);
  const auto samples = draw(top_k_only, kDraws, 3);
  // Tokens past the nucleus are outside the support; the fit alone rejects it too.
  const auto problem = check_membership(target_.view(), samples, kDraws);
  ASSERT_TRUE(problem);
  // A row whose nucleus is one token is greedy, so that failure can come first.
  EXPECT_THAT(problem->reason_code,
              ::testing::AnyOf("sample_outside_support", "greedy_mismatch"));
  EXPECT_LT(fit(samples).p_value, kSignificance);
}

TEST_F(SamplerPowerTest, RejectsAnArgmaxSampler) {
  std::vector<int64_t> samples;
  for (int64_t d = 0; d < kDraws; ++d) {
    for (const auto& row : kept_) {
      samples.push_back(std::max_element(row.begin(), row.end()) - row.begin());
    }
  }
  EXPECT_FALSE(check_membership(target_.view(), samples, kDraws));  // argmax is always allowed
  EXPECT_LT(fit(samples).p_value, kSignificance);
}

TEST_F(SamplerPowerTest, RejectsASamplerThatIgnoresTheSeed) {
  // Exact per call, but every draw repeats the first one.
  const auto first = draw(kept_, 1, 11);
  std::vector<int64_t> samples;
  for (int64_t d = 0; d < kDraws; ++d) samples.insert(samples.end(), first.begin(), first.end());
  EXPECT_FALSE(check_membership(target_.view(), samples, kDraws));
  EXPECT_LT(fit(samples).p_value, kSignificance);
}

TEST(DistributionCheckTest, SingleRowAtBatchOneDrawsRejectsTemperatureOff) {
  // The batch-1 workload: one row, 16000 draws.
  const auto logits = model_logits(1, 5000, 5);
  const auto kept = kept_distribution(logits, 1, 5000, 0.6, 20, 0.95);
  const Target target = to_target(kept);
  EXPECT_GE(chi_square_fit(target.view(), draw(kept, 16000, 2), 16000).p_value, kSignificance);
  const auto hotter = kept_distribution(logits, 1, 5000, 0.66, 20, 0.95);
  EXPECT_LT(chi_square_fit(target.view(), draw(hotter, 16000, 2), 16000).p_value, kSignificance);
}

Target small_target(std::vector<std::vector<float>> rows) {
  Target target;
  target.rows = static_cast<int64_t>(rows.size());
  target.vocab = static_cast<int64_t>(rows.front().size());
  for (const auto& row : rows) {
    for (float value : row) {
      target.probabilities.push_back(value);
      target.support.push_back(value > 0.0f ? 1 : 0);
    }
  }
  return target;
}

TEST(DistributionCheckTest, MembershipNamesDrawRowAndToken) {
  const Target target = small_target({{0.5f, 0.5f, 0.0f}, {0.0f, 0.25f, 0.75f}});
  // draw-major: draw 0 = {0, 2}, draw 1 = {1, 0}: row 1 of draw 1 samples token 0 (probability 0).
  const auto problem = check_membership(target.view(), {0, 2, 1, 0}, 2);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->reason_code, "sample_outside_support");
  EXPECT_THAT(problem->message, HasSubstr("draw 1 row 1: sampled token 0"));
  EXPECT_THAT(problem->message, HasSubstr("1 of 4 samples outside"));
}

TEST(DistributionCheckTest, MembershipRejectsTokensOutOfRange) {
  const Target target = small_target({{0.5f, 0.5f}});
  const auto problem = check_membership(target.view(), {2}, 1);
  ASSERT_TRUE(problem);
  EXPECT_THAT(problem->message, HasSubstr("token 2 is not in [0, 2)"));
  EXPECT_TRUE(check_membership(target.view(), {-1}, 1));
}

TEST(DistributionCheckTest, SupportAdmitsBoundaryTokensWithZeroProbability) {
  Target target = small_target({{0.6f, 0.4f, 0.0f}});
  target.support[2] = 1;  // within rounding of a limit: a correct fp32 sampler may return it
  EXPECT_FALSE(check_membership(target.view(), {2}, 1));
}

TEST(DistributionCheckTest, GreedyRowsMustReturnTheirOnlyToken) {
  const Target target = small_target({{0.0f, 1.0f, 0.0f}, {0.5f, 0.5f, 0.0f}});
  EXPECT_FALSE(check_membership(target.view(), {1, 0, 1, 1}, 2));
  const auto problem = check_membership(target.view(), {1, 0, 2, 1}, 2);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->reason_code, "greedy_mismatch");
  EXPECT_THAT(problem->message, HasSubstr("draw 1 row 0: sampled token 2"));
  EXPECT_THAT(problem->message, HasSubstr("only allowed token is 1"));
}

TEST(DistributionCheckTest, AWiderSupportIsNotGreedy) {
  Target target = small_target({{1.0f, 0.0f}});
  target.support[1] = 1;
  EXPECT_FALSE(target.view().only_token(0));
  EXPECT_FALSE(check_membership(target.view(), {1}, 1));
}

// Draw-major samples of one row with the given token counts.
std::vector<int64_t> with_counts(const std::vector<int>& counts) {
  std::vector<int64_t> samples;
  for (size_t token = 0; token < counts.size(); ++token) {
    samples.insert(samples.end(), counts[token], static_cast<int64_t>(token));
  }
  return samples;
}

TEST(DistributionCheckTest, SmallCellsMergeIntoOneCellPerRow) {
  // Expected {32, 16, 8, 4, 2, 2} at 64 draws: the last three merge into one cell of 8.
  const Target target = small_target({{0.5f, 0.25f, 0.125f, 0.0625f, 0.03125f, 0.03125f}});
  const FitResult exact = chi_square_fit(target.view(), with_counts({32, 16, 8, 3, 3, 2}), 64);
  EXPECT_EQ(exact.cells, 4);
  EXPECT_EQ(exact.degrees_of_freedom, 3);
  EXPECT_EQ(exact.merged_tokens, 3);
  EXPECT_DOUBLE_EQ(exact.chi_square, 0.0);
  EXPECT_DOUBLE_EQ(exact.p_value, 1.0);
  // 4^2 / 32 + 4^2 / 16
  const FitResult off = chi_square_fit(target.view(), with_counts({36, 12, 8, 4, 2, 2}), 64);
  EXPECT_DOUBLE_EQ(off.chi_square, 1.5);
  EXPECT_NEAR(off.p_value, chi_square_upper_tail(1.5, 3.0), 1e-12);
}

TEST(DistributionCheckTest, AMergedCellBelowTheMinimumJoinsTheSmallestCell) {
  // Expected {32, 28, 2, 2}: the merged cell (4) joins the 28 cell; 2 cells, 1 dof.
  const Target target = small_target({{0.5f, 0.4375f, 0.03125f, 0.03125f}});
  const FitResult fit = chi_square_fit(target.view(), with_counts({32, 26, 3, 3}), 64);
  EXPECT_EQ(fit.cells, 2);
  EXPECT_EQ(fit.degrees_of_freedom, 1);
  EXPECT_DOUBLE_EQ(fit.chi_square, 0.0);
  // (28 - 32)^2 / 32 + (36 - 32)^2 / 32
  const FitResult off = chi_square_fit(target.view(), with_counts({28, 30, 3, 3}), 64);
  EXPECT_DOUBLE_EQ(off.chi_square, 1.0);
}

TEST(DistributionCheckTest, ARowOfOnlySmallCellsAddsNoFreedom) {
  const Target target = small_target({std::vector<float>(100, 0.01f)});
  const FitResult fit = chi_square_fit(target.view(), with_counts(std::vector<int>(50, 1)), 50);
  EXPECT_EQ(fit.degrees_of_freedom, 0);
  EXPECT_EQ(fit.p_value, 1.0);
}

TEST(DistributionCheckTest, UpperTailMatchesKnownValues) {
  EXPECT_NEAR(chi_square_upper_tail(3.841458820694124, 1.0), 0.05, 1e-9);
  EXPECT_NEAR(chi_square_upper_tail(18.307038053275146, 10.0), 0.05, 1e-9);
  EXPECT_NEAR(chi_square_upper_tail(2.0, 2.0), std::exp(-1.0), 1e-12);  // Q = exp(-x/2) at 2 dof
  EXPECT_EQ(chi_square_upper_tail(0.0, 5.0), 1.0);
  EXPECT_LT(chi_square_upper_tail(1e5, 100.0), 1e-300);
}

TEST(DistributionCheckTest, ReadsInt32AndInt64TokenIds) {
  const std::vector<int32_t> narrow{3, 1, 4};
  const TensorFile file32{"samples", "int32", {3}, false, {}};
  EXPECT_EQ(read_token_ids(file32, reinterpret_cast<const std::byte*>(narrow.data())),
            (std::vector<int64_t>{3, 1, 4}));
  const TensorFile float_file{"samples", "float32", {3}, false, {}};
  EXPECT_THROW(read_token_ids(float_file, reinterpret_cast<const std::byte*>(narrow.data())),
               std::invalid_argument);
}

TEST(DistributionCheckTest, RejectsTargetsOfTheWrongShapeOrDtype) {
  const std::vector<float> p(6, 0.5f);
  const std::vector<uint8_t> s(6, 1);
  const auto* pb = reinterpret_cast<const std::byte*>(p.data());
  const auto* sb = reinterpret_cast<const std::byte*>(s.data());
  const TensorFile p23{"p", "float32", {2, 3}, false, {}};
  const TensorFile s32{"s", "bool", {3, 2}, false, {}};
  const TensorFile s23_int{"s", "int64", {2, 3}, false, {}};
  const TensorFile p6{"p", "float32", {6}, false, {}};
  EXPECT_THROW(TargetDistribution(p23, pb, s32, sb), std::invalid_argument);
  EXPECT_THROW(TargetDistribution(p23, pb, s23_int, sb), std::invalid_argument);
  EXPECT_THROW(TargetDistribution(p6, pb, p6, sb), std::invalid_argument);
}

}  // namespace
}  // namespace d2k::eval
