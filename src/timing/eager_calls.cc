#include "timing/eager_calls.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "timing/timing_error.h"

namespace d2k::timing {

void require_work_inside_intervals(double host_s, double device_s, const Settings& settings) {
  if (host_s <= 2.0 * device_s || host_s <= device_s + settings.untimed_work_seconds) return;
  throw UntimedWork("the host waited " + std::to_string(host_s) + " s for calls whose timed " +
                    "intervals add up to " + std::to_string(device_s) +
                    " s: the call leaves work the harness stream's interval does not bracket " +
                    "(another stream or a host thread)");
}

EagerCalls::EagerCalls(CallTarget& target, TimingBackend& backend, const Settings& settings)
    : target_(target), backend_(backend), settings_(settings), rotation_(target.input_sets()) {}

void EagerCalls::warm_up() {
  if (target_.has_state()) target_.restore_state(0);
  target_.call(0);
  backend_.synchronize();
}

double EagerCalls::time(int64_t count) {
  const double host_start = backend_.host_now_s();
  const Timed timed =
      target_.has_state() ? time_each_after_restore(count) : time_back_to_back(count);
  require_work_inside_intervals(backend_.host_now_s() - host_start,
                                timed.calls_s + timed.restores_s, settings_);
  return timed.calls_s;
}

int64_t EagerCalls::grow_to_sample() {
  const double target_s = settings_.min_sample_seconds;
  const int64_t limit = std::max(rotation_.sets(), settings_.max_calls_per_sample);
  int64_t calls = rotation_.sets();
  while (true) {
    const double seconds = time(calls);
    if (seconds >= target_s || calls >= limit) return calls;
    // Aim 5 % past the minimum, and grow at least 2x and at most 64x a step, so a call that
    // reads as free (below the clock's resolution) cannot make one batch enormous.
    const double wanted = seconds > 0.0 ? std::ceil(calls * target_s * 1.05 / seconds) : 0.0;
    const double next = std::clamp(wanted, 2.0 * calls, 64.0 * calls);
    calls = std::min(limit, rotation_.whole_rounds(static_cast<int64_t>(next)));
  }
}

EagerCalls::Timed EagerCalls::time_back_to_back(int64_t count) {
  TimingBackend::Interval& batch = interval(call_intervals_, 0);
  batch.start();
  for (int64_t i = 0; i < count; ++i) target_.call(rotation_.set_of(i));
  batch.stop();
  backend_.synchronize();
  return {batch.seconds(), 0.0};
}

EagerCalls::Timed EagerCalls::time_each_after_restore(int64_t count) {
  Timed timed;
  for (int64_t done = 0; done < count;) {
    const auto pending = static_cast<size_t>(std::min(count - done, kMaxPendingIntervals));
    for (size_t i = 0; i < pending; ++i) {
      const int64_t set = rotation_.set_of(done + static_cast<int64_t>(i));
      interval(restore_intervals_, i).start();
      target_.restore_state(set);
      interval(restore_intervals_, i).stop();
      interval(call_intervals_, i).start();
      target_.call(set);
      interval(call_intervals_, i).stop();
    }
    backend_.synchronize();
    for (size_t i = 0; i < pending; ++i) {
      timed.calls_s += call_intervals_[i]->seconds();
      timed.restores_s += restore_intervals_[i]->seconds();
    }
    done += static_cast<int64_t>(pending);
  }
  return timed;
}

TimingBackend::Interval& EagerCalls::interval(
    std::vector<std::unique_ptr<TimingBackend::Interval>>& pool, size_t index) {
  while (pool.size() <= index) pool.push_back(backend_.new_interval());
  return *pool[index];
}

}  // namespace d2k::timing
