#pragma once
// Speed of light for one workload (docs/scores.md): the least time the reference computation's
// work could take on this device, from the task's work model and the ceilings `d2k doctor`
// measured, and the fraction of it a measured latency reached.

#include <limits>
#include <string>

#include <nlohmann/json.hpp>

namespace d2k::record {

struct SpeedOfLight {
  double flops = 0.0;             // floating-point operations of the reference computation
  double bytes = 0.0;             // least device-memory traffic: inputs read, outputs written
  std::string math_dtype;         // the dtype whose matrix ceiling bounds the flops, e.g. "bf16"
  double peak_flops_per_s = 0.0;  // the matrix ceiling for math_dtype (DeviceCeilings)
  double peak_bytes_per_s = 0.0;  // the bandwidth ceiling (DeviceCeilings)
  std::string flops_source;       // which: a measurement, or the datasheet
  std::string bytes_source;
  double t_sol_s = 0.0;           // max(flops / peak_flops_per_s, bytes / peak_bytes_per_s)
  // t_sol_s / mean latency; NaN without a latency. Above 1 the latency beat the bound, which the
  // ceilings (the higher of measured and datasheet rates) and least-work models are built to
  // rule out: the report flags it as an error of the bound.
  double fraction = std::numeric_limits<double>::quiet_NaN();
};

void to_json(nlohmann::json& j, const SpeedOfLight& v);
void from_json(const nlohmann::json& j, SpeedOfLight& v);

}  // namespace d2k::record
