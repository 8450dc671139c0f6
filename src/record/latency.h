#pragma once
// How fast one implementation ran one workload, and how that was measured (docs/timing.md): the
// per-call latency of each sample, every sample's own duration, call count and device state,
// the cache policy the calls ran under, and which samples were taken again and why.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace d2k::record {

// The GPU's state as NVML reports it at one moment. The violation counters are cumulative
// nanoseconds the device spent held back by its power or thermal policy, so the difference of
// two readings is what happened between them.
struct DeviceReading {
  double sm_clock_mhz = 0.0;
  double temperature_c = 0.0;
  uint64_t clock_event_reasons = 0;  // NVML's clocks-event (throttle) reason bits
  uint64_t power_violation_ns = 0;
  uint64_t thermal_violation_ns = 0;
};

// One sample: an interval holding `calls` calls (net of restores for stateful graphs).
struct TimingSample {
  double duration_s = 0.0;  // the interval's device time; at least the protocol's minimum
  int64_t calls = 0;
  double per_call_s = 0.0;
  std::optional<DeviceReading> before;
  std::optional<DeviceReading> after;
  // Why the device was held back during the sample ("thermal", "hw_slowdown", "power_brake",
  // "power_cap"), comma-separated; empty when it ran free.
  std::string held_back;
};

struct Latency {
  std::string method;        // timing method name
  std::string stopping;      // "fixed" (a set number of samples) or "noise" (until stable)
  std::string cache_policy;  // "cold" (no input resident in L2 when a call starts) or "hot"
  int64_t input_sets = 1;      // independent input sets the calls rotate over
  std::string input_sets_why;  // the rule that decided how many (timing/input_sets.h)
  int64_t input_set_bytes = 0;  // tensor bytes of one input set
  int64_t l2_bytes = 0;        // the device's L2 size, read at run time (0 on a CPU)
  double min_sample_seconds = 0.0;  // the protocol's minimum sample duration
  double mean_s = 0.0;       // mean per-call latency over samples
  double stdev_s = 0.0;      // spread across samples (sample standard deviation)
  double min_s = 0.0;
  double max_s = 0.0;
  int64_t calls_per_sample = 0;   // calls in the last sample
  std::vector<double> samples_s;  // per-call latency of each sample
  std::vector<TimingSample> samples;  // the same samples in full, in order
  int retaken_held_back = 0;  // samples discarded because the device throttled during them
  int retaken_short = 0;      // samples discarded because they ran shorter than the minimum
  int kept_held_back = 0;     // throttled samples kept once the retake limit was reached

  double cv() const { return mean_s > 0.0 ? stdev_s / mean_s : 0.0; }
  // The shortest sample's duration; 0 without samples.
  double shortest_sample_s() const;
};

void to_json(nlohmann::json& j, const DeviceReading& v);
void from_json(const nlohmann::json& j, DeviceReading& v);
void to_json(nlohmann::json& j, const TimingSample& v);
void from_json(const nlohmann::json& j, TimingSample& v);
void to_json(nlohmann::json& j, const Latency& v);
void from_json(const nlohmann::json& j, Latency& v);

}  // namespace d2k::record
