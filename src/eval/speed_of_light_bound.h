#pragma once
// Speed of light per workload (docs/scores.md): the least time the reference computation's work
// could take on the device, t_sol = max(flops / matrix ceiling of the math dtype, bytes / copy
// bandwidth), and the fraction t_sol / mean latency that a measured latency reached.

#include <optional>
#include <string>

#include "record/device_ceilings.h"
#include "record/result.h"
#include "task/task.h"

namespace d2k::eval {

// The bound for `work`, or nullopt when a ceiling it needs was not measured (no matrix ceiling
// for `math_dtype` while flops > 0, no copy bandwidth while bytes > 0) or the work is zero.
// The fraction is NaN without a latency.
std::optional<record::SpeedOfLight> speed_of_light(const task::Work& work,
                                                   const std::string& math_dtype,
                                                   const record::DeviceCeilings& ceilings,
                                                   const std::optional<record::Latency>& latency);

// Sets WorkloadResult::sol on every workload of `result` whose task workload has a work model
// (task.workloads matched by label); leaves the others unset.
void attach_speed_of_light(const task::Task& task, const record::DeviceCeilings& ceilings,
                           record::EvaluationResult& result);

}  // namespace d2k::eval
