#pragma once

#include <string>

#include "record/latency.h"

namespace d2k::timing {

// Why the device was held back between two readings, as a comma-separated list of "thermal"
// (a thermal slowdown reason, or the thermal violation counter grew), "hw_slowdown",
// "power_brake" and "power_cap" (the software power cap, or the power violation counter grew);
// empty when it ran free.
std::string held_back_between(const record::DeviceReading& before,
                              const record::DeviceReading& after);

// Whether a sample held back for `reasons` is taken again. Thermal and hardware slowdowns are
// passing events a retake avoids. Running at the software power cap is not: a kernel that keeps
// the tensor cores busy holds the card at its power limit for as long as it runs, so a retake
// would meet the same cap; such samples are kept and marked.
bool worth_retaking(const std::string& reasons);

}  // namespace d2k::timing
