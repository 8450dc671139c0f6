#include "doctor/ceilings.h"

#include <stdexcept>

#include "task/task.h"

namespace d2k::doctor {

record::DeviceCeilings measure_ceilings(CeilingProbe& probe) {
  record::DeviceCeilings ceilings;
  for (const std::string_view dtype : task::kMathDtypes) {
    const double flops = probe.matmul_flops_per_s(std::string(dtype));
    if (!(flops > 0.0)) {
      throw std::runtime_error("the " + std::string(dtype) + " matrix ceiling came out as " +
                               std::to_string(flops) + " flop/s");
    }
    ceilings.matmul_flops_per_s[std::string(dtype)] = flops;
  }
  ceilings.copy_bytes_per_s = probe.copy_bytes_per_s();
  if (!(ceilings.copy_bytes_per_s > 0.0)) {
    throw std::runtime_error("the copy bandwidth came out as " +
                             std::to_string(ceilings.copy_bytes_per_s) + " bytes/s");
  }
  ceilings.matmul_size = probe.matmul_size();
  ceilings.copy_bytes = probe.copy_bytes();
  return ceilings;
}

}  // namespace d2k::doctor
