#pragma once

#include <string>

#include "doctor/ceiling_probe.h"
#include "record/device_ceilings.h"

namespace d2k::doctor {

// Every ceiling a speed-of-light bound may need: one measured matrix ceiling per math dtype d2k
// times (task::kMeasuredMathDtypes), the read, write and copy bandwidths, and the datasheet's peaks
// for `device_name` when d2k knows the device. Throws what the probe throws, and
// std::runtime_error for a measurement that is not a positive rate.
record::DeviceCeilings measure_ceilings(CeilingProbe& probe, const std::string& device_name);

}  // namespace d2k::doctor
