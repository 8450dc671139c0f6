#pragma once

#include <string>

#include "timing/measurement_method.h"

namespace d2k::timing {

// Device intervals around batches of back-to-back calls, each batch lasting at least
// `min_sample_seconds`; one sample is the batch's time divided by its calls. Stateful tasks time
// every call in its own interval with the restore before it outside, and a batch's time is the
// sum of its calls' intervals.
class EventsMethod : public MeasurementMethod {
 public:
  std::string name() const override;
  std::string description() const override;
  record::Latency measure(CallTarget& target, TimingBackend& backend,
                          const Settings& settings) const override;
};

}  // namespace d2k::timing
