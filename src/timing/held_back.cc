#include "timing/held_back.h"

#include <cstdint>
#include <vector>

namespace d2k::timing {
namespace {

// NVML's clocks-event reason bits (nvmlClocksEventReason*).
constexpr uint64_t kSwPowerCap = 0x4;
constexpr uint64_t kHwSlowdown = 0x8;
constexpr uint64_t kSwThermalSlowdown = 0x20;
constexpr uint64_t kHwThermalSlowdown = 0x40;
constexpr uint64_t kHwPowerBrakeSlowdown = 0x80;

}  // namespace

std::string held_back_between(const record::DeviceReading& before,
                              const record::DeviceReading& after) {
  const uint64_t reasons = before.clock_event_reasons | after.clock_event_reasons;
  std::vector<const char*> found;
  if ((reasons & (kSwThermalSlowdown | kHwThermalSlowdown)) != 0 ||
      after.thermal_violation_ns > before.thermal_violation_ns) {
    found.push_back("thermal");
  }
  if ((reasons & kHwSlowdown) != 0) found.push_back("hw_slowdown");
  if ((reasons & kHwPowerBrakeSlowdown) != 0) found.push_back("power_brake");
  if ((reasons & kSwPowerCap) != 0 || after.power_violation_ns > before.power_violation_ns) {
    found.push_back("power_cap");
  }
  std::string text;
  for (const char* reason : found) text += (text.empty() ? "" : ",") + std::string(reason);
  return text;
}

bool worth_retaking(const std::string& reasons) {
  for (const char* passing : {"thermal", "hw_slowdown", "power_brake"}) {
    if (reasons.find(passing) != std::string::npos) return true;
  }
  return false;
}

}  // namespace d2k::timing
