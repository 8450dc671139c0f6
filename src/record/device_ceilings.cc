#include "record/device_ceilings.h"

namespace d2k::record {

std::optional<double> DeviceCeilings::matmul_ceiling(const std::string& math_dtype) const {
  const auto it = matmul_flops_per_s.find(math_dtype);
  if (it == matmul_flops_per_s.end() || !(it->second > 0.0)) return std::nullopt;
  return it->second;
}

void to_json(nlohmann::json& j, const DeviceCeilings& v) {
  j = {{"created_at", v.created_at},
       {"matmul_flops_per_s", v.matmul_flops_per_s},
       {"copy_bytes_per_s", v.copy_bytes_per_s},
       {"matmul_size", v.matmul_size},
       {"copy_bytes", v.copy_bytes}};
}

void from_json(const nlohmann::json& j, DeviceCeilings& v) {
  v.created_at = j.value("created_at", "");
  v.matmul_flops_per_s = j.value("matmul_flops_per_s", std::map<std::string, double>{});
  v.copy_bytes_per_s = j.value("copy_bytes_per_s", 0.0);
  v.matmul_size = j.value("matmul_size", int64_t{0});
  v.copy_bytes = j.value("copy_bytes", int64_t{0});
}

}  // namespace d2k::record
