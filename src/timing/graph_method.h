#pragma once

#include <string>

#include "timing/measurement_method.h"

namespace d2k::timing {

// For calls short enough that launch overhead would show: N calls captured into one graph that
// lasts at least `min_sample_seconds`, replayed `samples` times; one sample is the replay's time
// divided by N. Stateful tasks capture (restore, call) pairs and, separately, N restores alone;
// each sample subtracts a restores-only replay from a pairs replay. Needs a backend with graphs.
class GraphMethod : public MeasurementMethod {
 public:
  std::string name() const override;
  std::string description() const override;
  // Throws std::runtime_error, before any call, when the backend cannot capture graphs.
  record::Latency measure(CallTarget& target, TimingBackend& backend,
                          const Settings& settings) const override;
};

}  // namespace d2k::timing
