#pragma once

#include <memory>
#include <string>

#include "record/result.h"
#include "timing/call_target.h"
#include "timing/timing_backend.h"

namespace d2k::timing {

struct Settings {
  double min_sample_seconds = 1.0;  // each batch (events) or graph (graph) lasts at least this
  int samples = 5;                  // batches or graph replays that are reported
  int estimate_calls = 3;           // calls timed once to size the batches
  long long max_calls_per_sample = 1LL << 20;
};

// One way of turning repeated calls into a per-call latency. Methods are stateless policies
// selected by name from the registry (`d2k timing-methods` lists them).
class MeasurementMethod {
 public:
  virtual ~MeasurementMethod() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual record::Latency measure(CallTarget& target, TimingBackend& backend,
                                  const Settings& settings) const = 0;
};

}  // namespace d2k::timing
