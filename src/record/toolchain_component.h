#pragma once
// One piece of the software an evaluation depends on, as `d2k doctor` found it.

#include <string>

#include <nlohmann/json.hpp>

namespace d2k::record {

struct ToolchainComponent {
  std::string name;     // "driver", "cuda", "nvcc", "host compiler", "python", "torch", "triton"
  std::string version;  // empty when the component is missing
  std::string detail;   // where it was found, or why it is missing

  bool found() const { return !version.empty(); }
};

void to_json(nlohmann::json& j, const ToolchainComponent& v);
void from_json(const nlohmann::json& j, ToolchainComponent& v);

}  // namespace d2k::record
