#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "timing/call_target.h"
#include "timing/measurement_method.h"
#include "timing/timing_backend.h"

namespace d2k::timing {

// Calls launched one after another on the stream, not from a graph, and timed with backend
// intervals. Every method warms up with it; the events method also sizes and takes its samples
// with it. Calls rotate over the target's input sets in whole rounds. State restoration is
// launched between calls and outside every call's interval, so it is never counted.
class EagerCalls {
 public:
  // Stateful calls are timed each in its own interval. Intervals are recorded without
  // synchronizing, so the device never idles between a restore and its call waiting for the host;
  // this caps how many are outstanding (and so alive, for CUDA: two events each) before the
  // device is drained and they are read and reused.
  static constexpr int64_t kMaxPendingIntervals = 1024;

  EagerCalls(CallTarget& target, TimingBackend& backend, const Settings& settings);

  const InputRotation& rotation() const { return rotation_; }
  // One untimed call on set 0 (after a restore when the target has state), then a synchronize,
  // so one-time costs (compilation, autotuning, lazy allocation) stay out of every timing.
  void warm_up();
  // Device seconds of `count` calls, a whole number of rounds. Without state: one interval around
  // all of them. With state: each restore and each call in its own interval, and the calls'
  // intervals summed. Synchronizes before returning. Throws UntimedWork when the host waited far
  // longer than the intervals account for.
  double time(int64_t count);
  // Calls per sample: whole rounds, starting with one round and grown from each batch's time
  // until a batch lasts at least min_sample_seconds (or max_calls_per_sample is reached). The
  // batches it times are discarded.
  int64_t grow_to_sample();

 private:
  struct Timed {
    double calls_s = 0.0;
    double restores_s = 0.0;
  };
  Timed time_back_to_back(int64_t count);
  Timed time_each_after_restore(int64_t count);
  TimingBackend::Interval& interval(std::vector<std::unique_ptr<TimingBackend::Interval>>& pool,
                                    size_t index);

  CallTarget& target_;
  TimingBackend& backend_;
  const Settings& settings_;
  InputRotation rotation_;
  std::vector<std::unique_ptr<TimingBackend::Interval>> call_intervals_;
  std::vector<std::unique_ptr<TimingBackend::Interval>> restore_intervals_;
};

// Throws UntimedWork when `host_s`, the host's wait for work whose intervals add up to
// `device_s`, exceeds both twice `device_s` and `device_s` plus settings.untimed_work_seconds.
void require_work_inside_intervals(double host_s, double device_s, const Settings& settings);

}  // namespace d2k::timing
