#include "timing/events_method.h"

#include <algorithm>

#include "timing/batch_sizing.h"
#include "timing/eager_calls.h"
#include "timing/sample_loop.h"

namespace d2k::timing {

std::string EventsMethod::name() const { return "events"; }

std::string EventsMethod::description() const {
  return "device intervals around batches of back-to-back calls rotating over the input sets, "
         "each batch lasting at least min_sample_seconds; with state, each call in its own "
         "interval and restores outside";
}

record::Latency EventsMethod::measure(CallTarget& target, TimingBackend& backend,
                                      const Settings& settings) const {
  validate(settings);
  EagerCalls eager(target, backend, settings);
  eager.warm_up();
  const int64_t calls_per_batch = eager.grow_to_sample();
  return take_samples(name(), calls_per_batch, [&](int64_t size) {
    const int64_t calls = eager.rotation().whole_rounds(std::min(size, settings.max_calls_per_sample));
    const double seconds = eager.time(calls);
    return SampleRun{seconds, calls, seconds / static_cast<double>(calls)};
  }, backend, settings);
}

}  // namespace d2k::timing
