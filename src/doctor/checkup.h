#pragma once
// What `d2k doctor` finds on this machine: the toolchain and, when a CUDA device is usable, its
// measured ceilings (docs/scores.md, "Speed of light").

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/device_ceilings.h"
#include "record/result.h"
#include "record/toolchain_component.h"

namespace d2k::doctor {

struct Checkup {
  std::vector<record::ToolchainComponent> toolchain;
  // The machine and software the ceilings were measured with; the store keys them by it.
  record::Environment environment;
  std::optional<record::DeviceCeilings> ceilings;
  std::string no_ceilings_reason;  // why `ceilings` is empty
};

// Surveys the toolchain, then measures device 0's ceilings with a CudaCeilingProbe when a CUDA
// device is usable. A failed measurement is reported in no_ceilings_reason, not thrown.
Checkup run_checkup();

void to_json(nlohmann::json& j, const Checkup& v);

}  // namespace d2k::doctor
