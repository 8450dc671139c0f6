#pragma once

#include <string>

#include "timing/measurement_method.h"

namespace d2k::timing {

// For calls short enough that launch overhead would show: N calls (whole rounds over the input
// sets, about Settings::graph_seconds of work) captured into one graph, and each sample an
// interval around R back-to-back replays lasting at least `min_sample_seconds`; one sample's
// per-call latency is its time divided by R * N. Stateful tasks capture (restore, call) pairs
// and, separately, N restores alone; each sample subtracts R restores-only replays from R pairs
// replays. After the samples, the outputs are poisoned and the graph replayed once more, so the
// last timed call's outputs are a replay's. Needs a backend with graphs.
class GraphMethod : public MeasurementMethod {
 public:
  std::string name() const override;
  std::string description() const override;
  // Throws std::runtime_error, before any call, when the backend cannot capture graphs.
  record::Latency measure(CallTarget& target, TimingBackend& backend,
                          const Settings& settings) const override;
};

}  // namespace d2k::timing
