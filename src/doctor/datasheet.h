#pragma once
// Vendor datasheet peaks of the devices d2k knows: dense tensor-core throughput per math dtype
// and memory bandwidth. Speed-of-light bounds use them where they exceed what `d2k doctor`
// measured, so a bound holds even for a kernel faster than every probe.

#include <map>
#include <optional>
#include <string>

#include "record/device_ceilings.h"

namespace d2k::doctor {

struct Datasheet {
  std::map<std::string, record::Ceiling> matmul;  // by math dtype (task::kMathDtypes)
  record::Ceiling bandwidth;
};

// The datasheet of the device whose CUDA name is `device_name`; nullopt for a device d2k does
// not know (its bounds then rest on the measurements alone).
std::optional<Datasheet> datasheet_for(const std::string& device_name);

}  // namespace d2k::doctor
