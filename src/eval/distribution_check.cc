#include "eval/distribution_check.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

namespace d2k::eval {
namespace {

template <typename T>
T load(const std::byte* base, int64_t index) {
  T value;
  std::memcpy(&value, base + index * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return value;
}

void require_matrix(const TensorFile& file, const char* role) {
  if (file.shape.size() != 2) {
    throw std::invalid_argument(fmt::format("target {} must be [rows, vocab], got {} dimensions",
                                            role, file.shape.size()));
  }
}

}  // namespace

TargetDistribution::TargetDistribution(const TensorFile& probabilities,
                                       const std::byte* probability_bytes,
                                       const TensorFile& support, const std::byte* support_bytes)
    : probabilities_(probability_bytes), support_(support_bytes) {
  require_matrix(probabilities, "probabilities");
  require_matrix(support, "support");
  if (probabilities.shape != support.shape) {
    throw std::invalid_argument("target probabilities and support differ in shape");
  }
  if (probabilities.dtype == "float64") {
    double_precision_ = true;
  } else if (probabilities.dtype != "float32") {
    throw std::invalid_argument("target probabilities must be float32 or float64, got " +
                                probabilities.dtype);
  }
  if (support.dtype != "bool" && support.dtype != "uint8") {
    throw std::invalid_argument("target support must be bool or uint8, got " + support.dtype);
  }
  rows_ = probabilities.shape[0];
  vocab_ = probabilities.shape[1];
}

double TargetDistribution::probability(int64_t row, int64_t token) const {
  const int64_t index = row * vocab_ + token;
  return double_precision_ ? load<double>(probabilities_, index)
                           : static_cast<double>(load<float>(probabilities_, index));
}

bool TargetDistribution::allowed(int64_t row, int64_t token) const {
  return load<uint8_t>(support_, row * vocab_ + token) != 0;
}

std::optional<int64_t> TargetDistribution::only_token(int64_t row) const {
  std::optional<int64_t> only;
  for (int64_t token = 0; token < vocab_; ++token) {
    if (!allowed(row, token)) continue;
    if (only) return std::nullopt;
    only = token;
  }
  return only;
}

std::vector<int64_t> read_token_ids(const TensorFile& file, const std::byte* bytes) {
  const int64_t count = file.numel();
  std::vector<int64_t> ids(static_cast<size_t>(count));
  if (file.dtype == "int64") {
    std::memcpy(ids.data(), bytes, ids.size() * sizeof(int64_t));
  } else if (file.dtype == "int32") {
    for (int64_t i = 0; i < count; ++i) ids[i] = load<int32_t>(bytes, i);
  } else {
    throw std::invalid_argument("sampled token ids must be int64 or int32, got " + file.dtype);
  }
  return ids;
}

std::optional<SampleProblem> check_membership(const TargetDistribution& target,
                                              const std::vector<int64_t>& samples,
                                              int64_t draws) {
  const int64_t rows = target.rows();
  // Greedy rows first: their failure is the more precise message.
  for (int64_t row = 0; row < rows; ++row) {
    const std::optional<int64_t> only = target.only_token(row);
    if (!only) continue;
    for (int64_t draw = 0; draw < draws; ++draw) {
      const int64_t token = samples[draw * rows + row];
      if (token != *only) {
        return SampleProblem{
            "greedy_mismatch",
            fmt::format("draw {} row {}: sampled token {}, but the row's only allowed token is {}",
                        draw, row, token, *only)};
      }
    }
  }
  int64_t outside = 0;
  std::optional<std::string> first;
  for (int64_t draw = 0; draw < draws; ++draw) {
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t token = samples[draw * rows + row];
      const bool in_range = token >= 0 && token < target.vocab();
      if (in_range && target.allowed(row, token)) continue;
      ++outside;
      if (first) continue;
      first = in_range ? fmt::format("draw {} row {}: sampled token {} has target probability {:.3g} "
                                     "and is outside the allowed set",
                                     draw, row, token, target.probability(row, token))
                       : fmt::format("draw {} row {}: sampled token {} is not in [0, {})", draw,
                                     row, token, target.vocab());
    }
  }
  if (first) {
    return SampleProblem{"sample_outside_support",
                         fmt::format("{} ({} of {} samples outside)", *first, outside,
                                     draws * rows)};
  }
  return std::nullopt;
}

FitResult chi_square_fit(const TargetDistribution& target, const std::vector<int64_t>& samples,
                         int64_t draws, double min_expected) {
  const int64_t rows = target.rows();
  const double n = static_cast<double>(draws);
  FitResult fit;
  std::vector<int64_t> row_samples(static_cast<size_t>(draws));
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t draw = 0; draw < draws; ++draw) row_samples[draw] = samples[draw * rows + row];
    std::sort(row_samples.begin(), row_samples.end());
    const auto observed = [&](int64_t token) {
      const auto range = std::equal_range(row_samples.begin(), row_samples.end(), token);
      return static_cast<double>(range.second - range.first);
    };
    // Cells with enough expected count; everything else pools into `rest`.
    double statistic = 0.0;
    int64_t cells = 0;
    double smallest_expected = 0.0;
    double smallest_observed = 0.0;
    double covered_observed = 0.0;
    double rest_expected = 0.0;
    for (int64_t token = 0; token < target.vocab(); ++token) {
      const double expected = target.probability(row, token) * n;
      if (expected >= min_expected) {
        const double count = observed(token);
        statistic += (count - expected) * (count - expected) / expected;
        covered_observed += count;
        if (cells == 0 || expected < smallest_expected) {
          smallest_expected = expected;
          smallest_observed = count;
        }
        ++cells;
      } else {
        rest_expected += expected;
        if (target.allowed(row, token)) ++fit.merged_tokens;
      }
    }
    const double rest_observed = n - covered_observed;
    if (rest_expected >= min_expected) {
      statistic += (rest_observed - rest_expected) * (rest_observed - rest_expected) / rest_expected;
      ++cells;
    } else if (cells > 0 && (rest_expected > 0.0 || rest_observed > 0.0)) {
      // Too small to stand alone: the merged cell joins the row's smallest cell.
      const double old_term = (smallest_observed - smallest_expected) *
                              (smallest_observed - smallest_expected) / smallest_expected;
      const double joined_expected = smallest_expected + rest_expected;
      const double joined_observed = smallest_observed + rest_observed;
      statistic += (joined_observed - joined_expected) * (joined_observed - joined_expected) /
                       joined_expected -
                   old_term;
    }
    if (cells == 0) cells = 1;  // the whole row is one cell: no information, no freedom
    fit.chi_square += statistic;
    fit.cells += cells;
    fit.degrees_of_freedom += cells - 1;
  }
  fit.p_value = fit.degrees_of_freedom > 0
                    ? chi_square_upper_tail(fit.chi_square,
                                            static_cast<double>(fit.degrees_of_freedom))
                    : 1.0;
  return fit;
}

double chi_square_upper_tail(double statistic, double degrees_of_freedom) {
  // GSL's default handler aborts the process on a domain error; report through return values.
  static const bool handler_off = [] {
    gsl_set_error_handler_off();
    return true;
  }();
  (void)handler_off;
  if (!(statistic > 0.0)) return 1.0;
  return gsl_cdf_chisq_Q(statistic, degrees_of_freedom);
}

}  // namespace d2k::eval
