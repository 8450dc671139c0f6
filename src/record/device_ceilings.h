#pragma once
// The throughput ceilings of one device (docs/scores.md, "Speed of light"): what `d2k doctor`
// measured the fastest way it knows, and what the vendor's datasheet promises. A workload's
// speed-of-light bound divides the task's work model by the higher of the two, so no correct
// implementation can beat it.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace d2k::record {

// One rate and where it came from: "datasheet (NVIDIA H200 SXM)" or the measurement that reached
// it ("cuBLAS", "Triton streaming read", ...).
struct Ceiling {
  double rate = 0.0;
  std::string source;
};

struct DeviceCeilings {
  std::string created_at;  // when they were measured; set by the store
  // Dense matrix products by math dtype ("bf16", "fp16", "fp32"): the best measured flop/s.
  std::map<std::string, Ceiling> matmul;
  Ceiling read;   // bytes read per second by a streaming read
  Ceiling write;  // bytes written per second by a streaming write
  Ceiling copy;   // bytes read plus bytes written per second by a copy
  // The datasheet's peaks for this device, when d2k knows it (doctor/datasheet.h).
  std::map<std::string, Ceiling> datasheet_matmul;
  std::optional<Ceiling> datasheet_bandwidth;
  int64_t matmul_size = 0;   // the side of the square matrices multiplied
  int64_t stream_bytes = 0;  // the size of the buffers streamed

  // The ceilings a bound divides by: the highest of measured and datasheet values, with its
  // source; nullopt when there is none for `math_dtype`, or no bandwidth at all.
  std::optional<Ceiling> matmul_ceiling(const std::string& math_dtype) const;
  std::optional<Ceiling> bandwidth_ceiling() const;
};

void to_json(nlohmann::json& j, const Ceiling& v);
void from_json(const nlohmann::json& j, Ceiling& v);
void to_json(nlohmann::json& j, const DeviceCeilings& v);
void from_json(const nlohmann::json& j, DeviceCeilings& v);

}  // namespace d2k::record
