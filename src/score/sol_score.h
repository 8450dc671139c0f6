#pragma once
// The speed-of-light score of one workload (paper Eq. 3, after SOL-ExecBench), with the cases
// the paper warns about flagged rather than clamped: the paper does not report the score because
// implementations that change the algorithm can run below the bound derived from the reference.

#include <optional>

namespace d2k::score {

struct SolScore {
  // (t_b - T_SOL) / (t + t_b - 2 T_SOL); absent when the denominator is exactly zero.
  std::optional<double> value;
  // t_b <= T_SOL: the baseline already reaches the bound, so the numerator is not positive.
  bool baseline_not_above_bound = false;
  // t < T_SOL: the candidate beat the bound; without the other two flags the value exceeds 1.
  bool candidate_below_bound = false;
  // t + t_b - 2 T_SOL <= 0: the value has changed sign (or is undefined at zero).
  bool denominator_not_positive = false;

  // No flag set: the value lies in (0, 1], its intended reading (1 = at the bound, 0.5 = as
  // fast as the baseline).
  bool interpretable() const {
    return !baseline_not_above_bound && !candidate_below_bound && !denominator_not_positive;
  }
};

// Eq. 3 for a candidate latency t, a baseline latency t_b and the bound T_SOL, all in seconds.
// Throws std::invalid_argument unless all three are finite and positive.
SolScore sol_score(double candidate_s, double baseline_s, double sol_s);

}  // namespace d2k::score
