#include "eval/speed_of_light_bound.h"

#include <algorithm>
#include <limits>

namespace d2k::eval {

std::optional<record::SpeedOfLight> speed_of_light(const task::Work& work,
                                                   const std::string& math_dtype,
                                                   const record::DeviceCeilings& ceilings,
                                                   const std::optional<record::Latency>& latency) {
  record::SpeedOfLight sol;
  sol.flops = work.flops;
  sol.bytes = work.bytes;
  sol.math_dtype = math_dtype;
  if (work.flops > 0.0) {
    const auto peak = ceilings.matmul_ceiling(math_dtype);
    if (!peak) return std::nullopt;
    sol.peak_flops_per_s = peak->rate;
    sol.flops_source = peak->source;
  }
  if (work.bytes > 0.0) {
    const auto peak = ceilings.bandwidth_ceiling();
    if (!peak) return std::nullopt;
    sol.peak_bytes_per_s = peak->rate;
    sol.bytes_source = peak->source;
  }
  const double compute_s = work.flops > 0.0 ? work.flops / sol.peak_flops_per_s : 0.0;
  const double memory_s = work.bytes > 0.0 ? work.bytes / sol.peak_bytes_per_s : 0.0;
  sol.t_sol_s = std::max(compute_s, memory_s);
  if (!(sol.t_sol_s > 0.0)) return std::nullopt;
  sol.fraction = latency && latency->mean_s > 0.0 ? sol.t_sol_s / latency->mean_s
                                                  : std::numeric_limits<double>::quiet_NaN();
  return sol;
}

void attach_speed_of_light(const task::Task& task, const record::DeviceCeilings& ceilings,
                           record::EvaluationResult& result) {
  if (!task.work_model) return;
  for (record::WorkloadResult& w : result.workloads) {
    const task::Workload* workload = task.find_workload(w.workload);
    if (workload == nullptr || !workload->work) continue;
    w.sol = speed_of_light(*workload->work, task.work_model->math_dtype, ceilings, w.latency);
  }
}

}  // namespace d2k::eval
