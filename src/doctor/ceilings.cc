#include "doctor/ceilings.h"

#include <stdexcept>

#include "doctor/datasheet.h"
#include "task/task.h"

namespace d2k::doctor {
namespace {

record::Ceiling positive(record::Ceiling ceiling, const std::string& what) {
  if (!(ceiling.rate > 0.0)) {
    throw std::runtime_error("the " + what + " ceiling came out as " +
                             std::to_string(ceiling.rate) + " (" + ceiling.source + ")");
  }
  return ceiling;
}

}  // namespace

record::DeviceCeilings measure_ceilings(CeilingProbe& probe, const std::string& device_name) {
  record::DeviceCeilings ceilings;
  for (const std::string_view dtype : task::kMeasuredMathDtypes) {
    const std::string name(dtype);
    ceilings.matmul[name] = positive(probe.matmul(name), name + " matrix");
  }
  ceilings.read = positive(probe.read(), "read bandwidth");
  ceilings.write = positive(probe.write(), "write bandwidth");
  ceilings.copy = positive(probe.copy(), "copy bandwidth");
  ceilings.matmul_size = probe.matmul_size();
  ceilings.stream_bytes = probe.stream_bytes();
  if (const auto sheet = datasheet_for(device_name)) {
    ceilings.datasheet_matmul = sheet->matmul;
    ceilings.datasheet_bandwidth = sheet->bandwidth;
  }
  return ceilings;
}

}  // namespace d2k::doctor
