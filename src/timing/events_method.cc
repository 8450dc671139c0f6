#include "timing/events_method.h"

#include <vector>

#include "timing/batch_sizing.h"
#include "timing/eager_calls.h"
#include "timing/statistics.h"

namespace d2k::timing {
namespace {

// Per-call latency of each of `samples` batches of `calls_per_batch` calls.
std::vector<double> run_samples(EagerCalls& eager, int64_t calls_per_batch, int samples) {
  std::vector<double> per_call_s;
  per_call_s.reserve(samples);
  for (int i = 0; i < samples; ++i) {
    per_call_s.push_back(eager.time(calls_per_batch) / static_cast<double>(calls_per_batch));
  }
  return per_call_s;
}

}  // namespace

std::string EventsMethod::name() const { return "events"; }

std::string EventsMethod::description() const {
  return "device intervals around batches of back-to-back calls, each lasting at least "
         "min_sample_seconds; with state, each call in its own interval and restores outside";
}

record::Latency EventsMethod::measure(CallTarget& target, TimingBackend& backend,
                                      const Settings& settings) const {
  validate(settings);
  EagerCalls eager(target, backend);
  eager.warm_up();
  const double estimate_s = eager.estimate(settings.estimate_calls);
  const int64_t calls_per_batch = calls_per_sample(settings, estimate_s);
  return summarize(name(), calls_per_batch, run_samples(eager, calls_per_batch, settings.samples));
}

}  // namespace d2k::timing
