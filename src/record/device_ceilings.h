#pragma once
// The throughput ceilings `d2k doctor` measured on one device (docs/scores.md). A workload's
// speed-of-light bound divides the task's work model by them.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace d2k::record {

struct DeviceCeilings {
  std::string created_at;  // when they were measured; set by the store
  // Dense square matrix products, flop/s by math dtype ("bf16", "fp16", "fp32").
  std::map<std::string, double> matmul_flops_per_s;
  double copy_bytes_per_s = 0.0;  // device-to-device copy; bytes read plus bytes written
  int64_t matmul_size = 0;        // the side of the square matrices multiplied
  int64_t copy_bytes = 0;         // the size of the copied buffer

  // The matrix ceiling for `math_dtype`, when one was measured.
  std::optional<double> matmul_ceiling(const std::string& math_dtype) const;
};

void to_json(nlohmann::json& j, const DeviceCeilings& v);
void from_json(const nlohmann::json& j, DeviceCeilings& v);

}  // namespace d2k::record
