#include "record/device_ceilings.h"

#include "record/json_fields.h"

namespace d2k::record {
namespace {

// The higher positive rate of the two; nullopt when neither is positive.
std::optional<Ceiling> higher(std::optional<Ceiling> a, const std::optional<Ceiling>& b) {
  if (a && !(a->rate > 0.0)) a.reset();
  if (!b || !(b->rate > 0.0)) return a;
  if (!a || b->rate > a->rate) return b;
  return a;
}

template <typename Map>
std::optional<Ceiling> lookup(const Map& map, const std::string& key) {
  const auto it = map.find(key);
  if (it == map.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::optional<Ceiling> DeviceCeilings::matmul_ceiling(const std::string& math_dtype) const {
  return higher(lookup(matmul, math_dtype), lookup(datasheet_matmul, math_dtype));
}

std::optional<Ceiling> DeviceCeilings::bandwidth_ceiling() const {
  std::optional<Ceiling> best;
  for (const Ceiling& measured : {read, write, copy}) best = higher(best, measured);
  return higher(best, datasheet_bandwidth);
}

void to_json(nlohmann::json& j, const Ceiling& v) { j = {{"rate", v.rate}, {"source", v.source}}; }

void from_json(const nlohmann::json& j, Ceiling& v) {
  v.rate = number_or(j, "rate", 0.0);
  v.source = value_or<std::string>(j, "source", "");
}

void to_json(nlohmann::json& j, const DeviceCeilings& v) {
  j = {{"created_at", v.created_at},         {"matmul", v.matmul},
       {"read", v.read},                     {"write", v.write},
       {"copy", v.copy},                     {"datasheet_matmul", v.datasheet_matmul},
       {"matmul_size", v.matmul_size},       {"stream_bytes", v.stream_bytes}};
  j["datasheet_bandwidth"] =
      v.datasheet_bandwidth ? nlohmann::json(*v.datasheet_bandwidth) : nlohmann::json();
}

void from_json(const nlohmann::json& j, DeviceCeilings& v) {
  v.created_at = value_or<std::string>(j, "created_at", "");
  v.matmul = value_or<std::map<std::string, Ceiling>>(j, "matmul", {});
  v.read = value_or<Ceiling>(j, "read", {});
  v.write = value_or<Ceiling>(j, "write", {});
  v.copy = value_or<Ceiling>(j, "copy", {});
  v.datasheet_matmul = value_or<std::map<std::string, Ceiling>>(j, "datasheet_matmul", {});
  v.datasheet_bandwidth.reset();
  if (auto it = j.find("datasheet_bandwidth"); it != j.end() && !it->is_null()) {
    v.datasheet_bandwidth = it->get<Ceiling>();
  }
  v.matmul_size = value_or<int64_t>(j, "matmul_size", 0);
  v.stream_bytes = value_or<int64_t>(j, "stream_bytes", 0);
  // Ceilings stored before the read and write probes existed: the copy and the matrix products.
  if (v.matmul.empty() && j.contains("matmul_flops_per_s")) {
    for (const auto& [dtype, rate] : j.at("matmul_flops_per_s").items()) {
      v.matmul[dtype] = {rate.get<double>(), "cuBLAS"};
    }
    v.copy = {value_or<double>(j, "copy_bytes_per_s", 0.0), "driver copy"};
  }
}

}  // namespace d2k::record
