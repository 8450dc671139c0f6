#pragma once
// The distribution check of a sampled output (docs/protocol.md, "What is compared"). A sampler
// cannot be compared with the reference bit for bit, so its samples are checked against the
// exact target distribution the reference module gives (target_probabilities): every sample
// must be an allowed token, a row with one allowed token must return it, and the counts over
// many draws must fit the target by a pooled chi-square test. Pure functions over tensor bytes,
// tested without processes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/tensor_file.h"

namespace d2k::eval {

using protocol::dtype_size;
using protocol::is_floating;
using protocol::MappedFile;
using protocol::TensorFile;

// A view of one trial's target: row-major [rows, vocab] probabilities (float32 or float64) and
// the support (uint8 or bool; nonzero where a correct sampler may return the token: the tokens
// with probability > 0 plus any the reference admits at rounding boundaries). The bytes belong
// to the caller (mapped tensor files).
class TargetDistribution {
 public:
  // Throws std::invalid_argument when the shapes or dtypes do not fit.
  TargetDistribution(const TensorFile& probabilities, const std::byte* probability_bytes,
                     const TensorFile& support, const std::byte* support_bytes);

  int64_t rows() const { return rows_; }
  int64_t vocab() const { return vocab_; }
  double probability(int64_t row, int64_t token) const;
  bool allowed(int64_t row, int64_t token) const;
  // The one allowed token of a row whose support is a single token (a greedy row), or nullopt.
  std::optional<int64_t> only_token(int64_t row) const;

 private:
  int64_t rows_ = 0;
  int64_t vocab_ = 0;
  bool double_precision_ = false;
  const std::byte* probabilities_ = nullptr;
  const std::byte* support_ = nullptr;
};

// Sampled token ids as int64, from an int32 or int64 tensor file's bytes; throws
// std::invalid_argument for any other dtype.
std::vector<int64_t> read_token_ids(const TensorFile& file, const std::byte* bytes);

// A failed check: the reason code and a message naming the draw, row and token.
struct SampleProblem {
  std::string reason_code;  // sample_outside_support, greedy_mismatch, distribution_mismatch
  std::string message;
};

// Membership and greedy checks of `samples`, `draws` x target.rows() values (draw-major), as one
// trial's output (draws = 1) or the fit test's draws. The first problem found, or nullopt.
std::optional<SampleProblem> check_membership(const TargetDistribution& target,
                                              const std::vector<int64_t>& samples, int64_t draws);

struct FitResult {
  double chi_square = 0.0;
  int64_t degrees_of_freedom = 0;
  double p_value = 1.0;
  int64_t cells = 0;         // cells after merging, over all rows
  int64_t merged_tokens = 0;  // tokens whose expected count fell below the minimum
};

// Pearson's chi-square of the draws' counts against target * draws, pooled over rows. Per row,
// every token with an expected count of at least `min_expected` is a cell; all other allowed
// tokens share one merged cell, which joins the row's smallest cell when its own expected count
// is below the minimum. A row contributes (cells - 1) degrees of freedom. Samples outside the
// support must have been rejected by check_membership first (they count in the merged cell).
FitResult chi_square_fit(const TargetDistribution& target, const std::vector<int64_t>& samples,
                         int64_t draws, double min_expected = 5.0);

// P(X >= statistic) for X chi-square distributed with `degrees_of_freedom` (GSL).
double chi_square_upper_tail(double statistic, double degrees_of_freedom);

}  // namespace d2k::eval
