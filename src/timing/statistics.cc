#include "timing/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace d2k::timing {

void summarize(record::Latency& latency) {
  if (latency.samples.empty()) {
    throw std::invalid_argument("cannot summarize a latency from zero samples");
  }
  std::vector<double> per_call;
  per_call.reserve(latency.samples.size());
  for (const auto& sample : latency.samples) per_call.push_back(sample.per_call_s);
  const auto count = static_cast<double>(per_call.size());
  const double mean_s = std::accumulate(per_call.begin(), per_call.end(), 0.0) / count;
  // Two passes (mean first, then squared deviations) keep the variance accurate when the spread
  // is tiny compared with the mean, which is the usual case for repeated kernel timings.
  double squared_deviations = 0.0;
  for (const double sample_s : per_call) squared_deviations += (sample_s - mean_s) * (sample_s - mean_s);
  const auto [min_it, max_it] = std::minmax_element(per_call.begin(), per_call.end());
  latency.mean_s = mean_s;
  latency.stdev_s = count > 1 ? std::sqrt(squared_deviations / (count - 1)) : 0.0;
  latency.min_s = *min_it;
  latency.max_s = *max_it;
  latency.calls_per_sample = latency.samples.back().calls;
  latency.samples_s = std::move(per_call);
}

}  // namespace d2k::timing
