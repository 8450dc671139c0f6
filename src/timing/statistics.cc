#include "timing/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace d2k::timing {

record::Latency summarize(std::string method, int64_t calls_per_sample,
                          std::vector<double> per_call_samples_s) {
  if (per_call_samples_s.empty()) {
    throw std::invalid_argument("cannot summarize a latency from zero samples");
  }
  const auto count = static_cast<double>(per_call_samples_s.size());
  const double mean_s =
      std::accumulate(per_call_samples_s.begin(), per_call_samples_s.end(), 0.0) / count;
  // Two passes (mean first, then squared deviations) keep the variance accurate when the spread
  // is tiny compared with the mean, which is the usual case for repeated kernel timings.
  double squared_deviations = 0.0;
  for (const double sample_s : per_call_samples_s) {
    squared_deviations += (sample_s - mean_s) * (sample_s - mean_s);
  }
  const auto [min_it, max_it] =
      std::minmax_element(per_call_samples_s.begin(), per_call_samples_s.end());

  record::Latency latency;
  latency.method = std::move(method);
  latency.mean_s = mean_s;
  latency.stdev_s = count > 1 ? std::sqrt(squared_deviations / (count - 1)) : 0.0;
  latency.min_s = *min_it;
  latency.max_s = *max_it;
  latency.calls_per_sample = calls_per_sample;
  latency.samples_s = std::move(per_call_samples_s);
  return latency;
}

}  // namespace d2k::timing
