#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "record/result.h"
#include "timing/call_target.h"
#include "timing/timing_backend.h"

namespace d2k::timing {

struct Settings {
  double min_sample_seconds = 1.0;  // every sample's interval lasts at least this long
  int samples = 5;                  // "fixed": exactly this many; "noise": at least this many
  std::string stopping = "fixed";   // the stopping rule (stopping_rule.h)
  double noise_target = 0.005;      // "noise": the relative standard error of the mean to reach
  double max_sampling_seconds = 30.0;  // "noise": stop once the kept samples last this long
  int max_held_back_retakes = 3;   // samples taken again because the device throttled
  int max_short_retakes = 3;       // samples taken again, larger, because they ran short
  double graph_seconds = 0.02;     // "graph": how long one captured graph should run
  int64_t max_calls_per_graph = 4096;
  int64_t max_calls_per_sample = int64_t{1} << 26;
  // The host may wait this much longer than the timed interval (and at least as long again as
  // the interval) before the call is taken to leave work outside it (timing_error.h).
  double untimed_work_seconds = 0.5;
};

// One way of turning repeated calls into a per-call latency. Methods are stateless policies
// selected by name from the registry (`d2k timing-methods` lists them).
class MeasurementMethod {
 public:
  virtual ~MeasurementMethod() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Throws SampleTooShort or UntimedWork (timing_error.h), std::invalid_argument for settings no
  // method can work with, and whatever the target's calls throw.
  virtual record::Latency measure(CallTarget& target, TimingBackend& backend,
                                  const Settings& settings) const = 0;
};

}  // namespace d2k::timing
