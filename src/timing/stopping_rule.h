#pragma once

#include <memory>
#include <string>
#include <vector>

#include "timing/measurement_method.h"

namespace d2k::timing {

// When a measurement has enough samples. Rules are stateless policies chosen by name
// (Settings::stopping): "fixed" takes exactly Settings::samples; "noise", in the manner of
// NVBench, goes on past that many until the mean is known to within Settings::noise_target
// (its relative standard error) or the kept samples have lasted Settings::max_sampling_seconds.
class StoppingRule {
 public:
  virtual ~StoppingRule() = default;
  // `per_call_s`: the kept samples so far; `sampled_s`: their total duration.
  virtual bool done(const std::vector<double>& per_call_s, double sampled_s) const = 0;
};

// Throws std::invalid_argument naming the known rules when Settings::stopping is none of them.
std::unique_ptr<StoppingRule> make_stopping_rule(const Settings& settings);

// stdev / sqrt(n) / mean of `values` (Bessel's correction); infinite for fewer than two values
// or a mean of zero.
double relative_standard_error(const std::vector<double>& values);

}  // namespace d2k::timing
