#include "timing/stopping_rule.h"

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace d2k::timing {
namespace {

class FixedCount : public StoppingRule {
 public:
  explicit FixedCount(int samples) : samples_(samples) {}
  bool done(const std::vector<double>& per_call_s, double) const override {
    return static_cast<int>(per_call_s.size()) >= samples_;
  }

 private:
  int samples_;
};

class NoiseTarget : public StoppingRule {
 public:
  explicit NoiseTarget(const Settings& settings)
      : min_samples_(settings.samples),
        target_(settings.noise_target),
        max_seconds_(settings.max_sampling_seconds) {}
  bool done(const std::vector<double>& per_call_s, double sampled_s) const override {
    if (static_cast<int>(per_call_s.size()) < min_samples_) return false;
    return sampled_s >= max_seconds_ || relative_standard_error(per_call_s) <= target_;
  }

 private:
  int min_samples_;
  double target_;
  double max_seconds_;
};

}  // namespace

double relative_standard_error(const std::vector<double>& values) {
  const auto n = static_cast<double>(values.size());
  if (values.size() < 2) return std::numeric_limits<double>::infinity();
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  if (mean == 0.0) return std::numeric_limits<double>::infinity();
  double squares = 0.0;
  for (const double value : values) squares += (value - mean) * (value - mean);
  return std::sqrt(squares / (n - 1.0)) / std::sqrt(n) / std::abs(mean);
}

std::unique_ptr<StoppingRule> make_stopping_rule(const Settings& settings) {
  if (settings.stopping == "fixed") return std::make_unique<FixedCount>(settings.samples);
  if (settings.stopping == "noise") return std::make_unique<NoiseTarget>(settings);
  throw std::invalid_argument("unknown stopping rule '" + settings.stopping +
                              "' (known: fixed, noise)");
}

}  // namespace d2k::timing
