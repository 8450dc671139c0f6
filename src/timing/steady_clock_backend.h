#pragma once

#include <functional>
#include <memory>
#include <string>

#include "timing/timing_backend.h"

namespace d2k::timing {

// The host's monotonic clock, for CPU tasks. A CPU call has finished when it returns, so there is
// nothing to synchronize and an interval is the wall time between start() and stop(). There is
// no graph to capture: launch overhead, which graphs exist to hide, is not separate from a CPU
// call's own time.
class SteadyClockBackend : public TimingBackend {
 public:
  std::string name() const override;
  std::unique_ptr<Interval> new_interval() override;
  void synchronize() override;
  bool supports_graphs() const override;
  // Throws std::logic_error: callers check supports_graphs() first.
  std::unique_ptr<Graph> capture(const std::function<void()>& body) override;
  double host_now_s() const override;
};

}  // namespace d2k::timing
