#include "record/latency.h"

#include <algorithm>

#include "record/json_fields.h"

namespace d2k::record {
namespace {

std::optional<DeviceReading> reading_or_none(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<DeviceReading>();
}

}  // namespace

double Latency::shortest_sample_s() const {
  if (samples.empty()) return 0.0;
  return std::min_element(samples.begin(), samples.end(), [](const auto& a, const auto& b) {
           return a.duration_s < b.duration_s;
         })->duration_s;
}

void to_json(nlohmann::json& j, const DeviceReading& v) {
  j = {{"sm_clock_mhz", v.sm_clock_mhz},
       {"temperature_c", v.temperature_c},
       {"clock_event_reasons", v.clock_event_reasons},
       {"power_violation_ns", v.power_violation_ns},
       {"thermal_violation_ns", v.thermal_violation_ns}};
}

void from_json(const nlohmann::json& j, DeviceReading& v) {
  v.sm_clock_mhz = number_or(j, "sm_clock_mhz", 0.0);
  v.temperature_c = number_or(j, "temperature_c", 0.0);
  v.clock_event_reasons = value_or<uint64_t>(j, "clock_event_reasons", 0);
  v.power_violation_ns = value_or<uint64_t>(j, "power_violation_ns", 0);
  v.thermal_violation_ns = value_or<uint64_t>(j, "thermal_violation_ns", 0);
}

void to_json(nlohmann::json& j, const TimingSample& v) {
  j = {{"duration_s", v.duration_s}, {"calls", v.calls}, {"per_call_s", v.per_call_s}};
  if (v.before) j["before"] = *v.before;
  if (v.after) j["after"] = *v.after;
  if (!v.held_back.empty()) j["held_back"] = v.held_back;
}

void from_json(const nlohmann::json& j, TimingSample& v) {
  v.duration_s = number_or(j, "duration_s", 0.0);
  v.calls = value_or<int64_t>(j, "calls", 0);
  v.per_call_s = number_or(j, "per_call_s", 0.0);
  v.before = reading_or_none(j, "before");
  v.after = reading_or_none(j, "after");
  v.held_back = value_or<std::string>(j, "held_back", "");
}

void to_json(nlohmann::json& j, const Latency& v) {
  j = {{"method", v.method},
       {"stopping", v.stopping},
       {"cache_policy", v.cache_policy},
       {"input_sets", v.input_sets},
       {"input_sets_why", v.input_sets_why},
       {"input_set_bytes", v.input_set_bytes},
       {"l2_bytes", v.l2_bytes},
       {"min_sample_seconds", v.min_sample_seconds},
       {"mean_s", v.mean_s},
       {"stdev_s", v.stdev_s},
       {"min_s", v.min_s},
       {"max_s", v.max_s},
       {"cv", v.cv()},
       {"calls_per_sample", v.calls_per_sample},
       {"samples_s", v.samples_s},
       {"samples", v.samples},
       {"retaken_held_back", v.retaken_held_back},
       {"retaken_short", v.retaken_short},
       {"kept_held_back", v.kept_held_back}};
}

void from_json(const nlohmann::json& j, Latency& v) {
  v.method = value_or<std::string>(j, "method", "");
  v.stopping = value_or<std::string>(j, "stopping", "");
  v.cache_policy = value_or<std::string>(j, "cache_policy", "");
  v.input_sets = value_or<int64_t>(j, "input_sets", 1);
  v.input_sets_why = value_or<std::string>(j, "input_sets_why", "");
  v.input_set_bytes = value_or<int64_t>(j, "input_set_bytes", 0);
  v.l2_bytes = value_or<int64_t>(j, "l2_bytes", 0);
  v.min_sample_seconds = number_or(j, "min_sample_seconds", 0.0);
  v.mean_s = number_or(j, "mean_s", 0.0);
  v.stdev_s = number_or(j, "stdev_s", 0.0);
  v.min_s = number_or(j, "min_s", 0.0);
  v.max_s = number_or(j, "max_s", 0.0);
  v.calls_per_sample = value_or<int64_t>(j, "calls_per_sample", 0);
  v.samples_s = value_or<std::vector<double>>(j, "samples_s", {});
  v.samples = value_or<std::vector<TimingSample>>(j, "samples", {});
  v.retaken_held_back = value_or<int>(j, "retaken_held_back", 0);
  v.retaken_short = value_or<int>(j, "retaken_short", 0);
  v.kept_held_back = value_or<int>(j, "kept_held_back", 0);
}

}  // namespace d2k::record
