#include "timing/eager_calls.h"

#include <algorithm>

namespace d2k::timing {

EagerCalls::EagerCalls(CallTarget& target, TimingBackend& backend)
    : target_(target), backend_(backend) {}

void EagerCalls::warm_up() {
  if (target_.has_state()) target_.restore_state();
  target_.call();
  backend_.synchronize();
}

double EagerCalls::time(int64_t count) {
  return target_.has_state() ? time_each_after_restore(count) : time_back_to_back(count);
}

double EagerCalls::estimate(int count) { return time(count) / count; }

double EagerCalls::time_back_to_back(int64_t count) {
  TimingBackend::Interval& batch = interval(0);
  batch.start();
  for (int64_t i = 0; i < count; ++i) target_.call();
  batch.stop();
  backend_.synchronize();
  return batch.seconds();
}

double EagerCalls::time_each_after_restore(int64_t count) {
  double total_s = 0.0;
  for (int64_t done = 0; done < count;) {
    const auto pending = static_cast<size_t>(std::min(count - done, kMaxPendingIntervals));
    for (size_t i = 0; i < pending; ++i) {
      target_.restore_state();
      interval(i).start();
      target_.call();
      interval(i).stop();
    }
    backend_.synchronize();
    for (size_t i = 0; i < pending; ++i) total_s += interval(i).seconds();
    done += static_cast<int64_t>(pending);
  }
  return total_s;
}

TimingBackend::Interval& EagerCalls::interval(size_t index) {
  while (intervals_.size() <= index) intervals_.push_back(backend_.new_interval());
  return *intervals_[index];
}

}  // namespace d2k::timing
