#include "timing/batch_sizing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace d2k::timing {

void validate(const Settings& settings) {
  if (!std::isfinite(settings.min_sample_seconds) || settings.min_sample_seconds < 0.0) {
    throw std::invalid_argument("timing setting min_sample_seconds must be finite and >= 0");
  }
  if (settings.samples < 1) throw std::invalid_argument("timing setting samples must be >= 1");
  if (settings.estimate_calls < 1) {
    throw std::invalid_argument("timing setting estimate_calls must be >= 1");
  }
  if (settings.max_calls_per_sample < 1) {
    throw std::invalid_argument("timing setting max_calls_per_sample must be >= 1");
  }
}

int64_t calls_per_sample(const Settings& settings, double estimate_s) {
  const auto max_calls = static_cast<double>(settings.max_calls_per_sample);
  if (!(estimate_s > 0.0)) return settings.max_calls_per_sample;
  // Clamped while still a double: a tiny estimate gives a ratio no integer type can hold.
  const double calls = std::ceil(settings.min_sample_seconds / estimate_s);
  return static_cast<int64_t>(std::clamp(calls, 1.0, max_calls));
}

}  // namespace d2k::timing
