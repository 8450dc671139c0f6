#pragma once
// What one untimed, traced call of a candidate ran on the device (docs/protocol.md, "Runtime
// audit"): every kernel, copy and fill, with the stream and device it ran on, every time the host
// waited for the device, and the device memory the call needed beyond its inputs and outputs.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace d2k::record {

struct AuditedKernel {
  std::string name;  // demangled
  uint32_t device = 0;
  uint64_t stream = 0;  // the tracer's stream id
  std::array<int32_t, 3> grid{};
  std::array<int32_t, 3> block{};
  double duration_s = 0.0;
  int32_t registers_per_thread = 0;
  int32_t static_shared_bytes = 0;
  int32_t dynamic_shared_bytes = 0;
  // Launches this entry stands for: 1, or more where an audit too large for one message merged
  // launches of the same name, device and stream (durations summed).
  uint32_t launches = 1;
};

// A memcpy or memset.
struct AuditedTransfer {
  std::string operation;  // "memcpy" or "memset"
  std::string kind;       // memcpy: "HtoD", "DtoH", "DtoD", "HtoH", "PtoP"; memset: ""
  uint64_t bytes = 0;
  uint32_t device = 0;
  uint64_t stream = 0;
};

// The host waiting for the device inside the call: a synchronize API the candidate (or a library
// it called) made before returning.
struct AuditedSync {
  // "stream_synchronize", "event_synchronize", "context_synchronize", "stream_wait_event" (a
  // device-side wait between streams, recorded but not a host wait) or "unknown".
  std::string kind;
  std::optional<uint64_t> stream;  // the stream waited for, where the API names one
};

struct KernelAudit {
  // Why the call was not traced ("CUPTI not found: ...", "CPU task: ..."); empty when it was.
  // An untraced workload keeps its verdict, and its kernels and transfers are empty.
  std::string unavailable;
  std::string tracer;  // what traced the call: the tracer's name, version and library file
  uint32_t harness_device = 0;
  uint64_t harness_stream = 0;  // the stream the harness made current for the call
  // Calls of the candidate the trace covers: 1, or more for back-to-back calls traced as one
  // window, made as the timing loop makes them; the work comparison takes kernel time per call.
  uint32_t calls = 1;
  std::vector<AuditedKernel> kernels;
  std::vector<AuditedTransfer> transfers;
  std::vector<AuditedSync> synchronizations;
  // Device memory the call held beyond its inputs and outputs, at its peak; nullopt when it
  // could not be measured.
  std::optional<int64_t> peak_aux_bytes;
};

void to_json(nlohmann::json& j, const AuditedKernel& v);
void from_json(const nlohmann::json& j, AuditedKernel& v);
void to_json(nlohmann::json& j, const AuditedTransfer& v);
void from_json(const nlohmann::json& j, AuditedTransfer& v);
void to_json(nlohmann::json& j, const AuditedSync& v);
void from_json(const nlohmann::json& j, AuditedSync& v);
void to_json(nlohmann::json& j, const KernelAudit& v);
void from_json(const nlohmann::json& j, KernelAudit& v);

}  // namespace d2k::record
