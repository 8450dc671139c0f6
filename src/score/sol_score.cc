#include "score/sol_score.h"

#include "score/input_checks.h"

namespace d2k::score {

SolScore sol_score(double candidate_s, double baseline_s, double sol_s) {
  require_positive(candidate_s, "SOL score's candidate latency");
  require_positive(baseline_s, "SOL score's baseline latency");
  require_positive(sol_s, "SOL score's bound T_SOL");
  const double numerator = baseline_s - sol_s;
  const double denominator = candidate_s + baseline_s - 2.0 * sol_s;

  SolScore score;
  if (denominator != 0.0) score.value = numerator / denominator;
  score.baseline_not_above_bound = baseline_s <= sol_s;
  score.candidate_below_bound = candidate_s < sol_s;
  score.denominator_not_positive = denominator <= 0.0;
  return score;
}

}  // namespace d2k::score
