#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "timing/call_target.h"
#include "timing/timing_backend.h"

namespace d2k::timing {

// Calls launched one after another on the stream, not from a graph, and timed with backend
// intervals. Every method warms up and estimates with it; the events method also takes its
// samples with it. State restoration is launched between calls and outside every interval, so
// it is never counted.
class EagerCalls {
 public:
  // Stateful calls are timed each in its own interval. Intervals are recorded without
  // synchronizing, so the device never idles between a restore and its call waiting for the host;
  // this caps how many are outstanding (and so alive, for CUDA: two events each) before the
  // device is drained and they are read and reused.
  static constexpr int64_t kMaxPendingIntervals = 1024;

  EagerCalls(CallTarget& target, TimingBackend& backend);

  // One untimed call (after a restore when the target has state), then a synchronize, so one-time
  // costs (compilation, autotuning, lazy allocation, cold caches) stay out of every timing.
  void warm_up();
  // Device seconds of `count` calls. Without state: one interval around all of them. With state:
  // the restore before each call is outside, the call inside its own interval, and the result is
  // the sum of those intervals. Synchronizes before returning.
  double time(int64_t count);
  // Device seconds of one call, averaged over `count` timed calls.
  double estimate(int count);

 private:
  double time_back_to_back(int64_t count);
  double time_each_after_restore(int64_t count);
  TimingBackend::Interval& interval(size_t index);

  CallTarget& target_;
  TimingBackend& backend_;
  std::vector<std::unique_ptr<TimingBackend::Interval>> intervals_;
};

}  // namespace d2k::timing
