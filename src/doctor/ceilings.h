#pragma once

#include "doctor/ceiling_probe.h"
#include "record/device_ceilings.h"

namespace d2k::doctor {

// Every ceiling a speed-of-light bound may need: one matrix ceiling per math dtype a work model
// may name (task::kMathDtypes) and the copy bandwidth. Throws what the probe throws.
record::DeviceCeilings measure_ceilings(CeilingProbe& probe);

}  // namespace d2k::doctor
