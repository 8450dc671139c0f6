#include "timing/sample_loop.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "timing/held_back.h"
#include "timing/statistics.h"
#include "timing/stopping_rule.h"
#include "timing/timing_error.h"

namespace d2k::timing {
namespace {

// The size that should make a sample of `size` that lasted `duration_s` reach the minimum,
// with 5 % to spare; 64x when the sample read as taking no time at all.
int64_t enlarged(int64_t size, double duration_s, double min_s) {
  if (!(duration_s > 0.0)) return size * 64;
  const double wanted = std::ceil(static_cast<double>(size) * min_s * 1.05 / duration_s);
  return std::max(size + 1, static_cast<int64_t>(std::min(wanted, 64.0 * size)));
}

}  // namespace

record::Latency take_samples(const std::string& method, int64_t size, const TakeSample& take,
                             TimingBackend& backend, const Settings& settings) {
  const auto stopping = make_stopping_rule(settings);
  record::Latency latency;
  latency.method = method;
  latency.stopping = settings.stopping;
  latency.min_sample_seconds = settings.min_sample_seconds;
  std::vector<double> kept_per_call;
  double sampled_s = 0.0;
  while (!stopping->done(kept_per_call, sampled_s)) {
    record::TimingSample sample;
    sample.before = backend.read_device();
    const SampleRun run = take(size);
    sample.after = backend.read_device();
    sample.duration_s = run.duration_s;
    sample.calls = run.calls;
    sample.per_call_s = run.per_call_s;
    if (run.duration_s < settings.min_sample_seconds) {
      if (latency.retaken_short >= settings.max_short_retakes) {
        throw SampleTooShort(method + ": a sample of " + std::to_string(run.calls) +
                             " calls lasted " + std::to_string(run.duration_s) +
                             " s, below the protocol's minimum of " +
                             std::to_string(settings.min_sample_seconds) + " s, after " +
                             std::to_string(latency.retaken_short) + " larger retakes");
      }
      ++latency.retaken_short;
      size = enlarged(size, run.duration_s, settings.min_sample_seconds);
      continue;
    }
    if (sample.before && sample.after) {
      sample.held_back = held_back_between(*sample.before, *sample.after);
    }
    if (worth_retaking(sample.held_back)) {
      if (latency.retaken_held_back < settings.max_held_back_retakes) {
        ++latency.retaken_held_back;
        continue;
      }
      ++latency.kept_held_back;
    }
    kept_per_call.push_back(sample.per_call_s);
    sampled_s += sample.duration_s;
    latency.samples.push_back(std::move(sample));
  }
  summarize(latency);
  return latency;
}

}  // namespace d2k::timing
