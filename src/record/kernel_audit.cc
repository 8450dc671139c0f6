#include "record/kernel_audit.h"

namespace d2k::record {

void to_json(nlohmann::json& j, const AuditedKernel& v) {
  j = {{"name", v.name},
       {"device", v.device},
       {"stream", v.stream},
       {"grid", v.grid},
       {"block", v.block},
       {"duration_s", v.duration_s},
       {"registers_per_thread", v.registers_per_thread},
       {"static_shared_bytes", v.static_shared_bytes},
       {"dynamic_shared_bytes", v.dynamic_shared_bytes},
       {"launches", v.launches}};
}

void from_json(const nlohmann::json& j, AuditedKernel& v) {
  v.name = j.value("name", "");
  v.device = j.value("device", uint32_t{0});
  v.stream = j.value("stream", uint64_t{0});
  v.grid = j.value("grid", std::array<int32_t, 3>{});
  v.block = j.value("block", std::array<int32_t, 3>{});
  v.duration_s = j.value("duration_s", 0.0);
  v.registers_per_thread = j.value("registers_per_thread", int32_t{0});
  v.static_shared_bytes = j.value("static_shared_bytes", int32_t{0});
  v.dynamic_shared_bytes = j.value("dynamic_shared_bytes", int32_t{0});
  v.launches = j.value("launches", uint32_t{1});
}

void to_json(nlohmann::json& j, const AuditedTransfer& v) {
  j = {{"operation", v.operation}, {"kind", v.kind},     {"bytes", v.bytes},
       {"device", v.device},       {"stream", v.stream}};
}

void from_json(const nlohmann::json& j, AuditedTransfer& v) {
  v.operation = j.value("operation", "");
  v.kind = j.value("kind", "");
  v.bytes = j.value("bytes", uint64_t{0});
  v.device = j.value("device", uint32_t{0});
  v.stream = j.value("stream", uint64_t{0});
}

void to_json(nlohmann::json& j, const AuditedSync& v) {
  j = {{"kind", v.kind}};
  j["stream"] = v.stream ? nlohmann::json(*v.stream) : nlohmann::json(nullptr);
}

void from_json(const nlohmann::json& j, AuditedSync& v) {
  v.kind = j.value("kind", "");
  const auto stream = j.find("stream");
  v.stream.reset();
  if (stream != j.end() && stream->is_number_unsigned()) v.stream = stream->get<uint64_t>();
}

void to_json(nlohmann::json& j, const KernelAudit& v) {
  j = {{"unavailable", v.unavailable},
       {"tracer", v.tracer},
       {"harness_device", v.harness_device},
       {"harness_stream", v.harness_stream},
       {"calls", v.calls},
       {"kernels", v.kernels},
       {"transfers", v.transfers},
       {"synchronizations", v.synchronizations}};
  j["peak_aux_bytes"] = v.peak_aux_bytes ? nlohmann::json(*v.peak_aux_bytes) : nlohmann::json(nullptr);
}

void from_json(const nlohmann::json& j, KernelAudit& v) {
  v.unavailable = j.value("unavailable", "");
  v.tracer = j.value("tracer", "");
  v.harness_device = j.value("harness_device", uint32_t{0});
  v.harness_stream = j.value("harness_stream", uint64_t{0});
  v.calls = j.value("calls", uint32_t{1});
  v.kernels = j.value("kernels", std::vector<AuditedKernel>{});
  v.transfers = j.value("transfers", std::vector<AuditedTransfer>{});
  v.synchronizations = j.value("synchronizations", std::vector<AuditedSync>{});
  const auto peak = j.find("peak_aux_bytes");
  v.peak_aux_bytes.reset();
  if (peak != j.end() && peak->is_number_integer()) v.peak_aux_bytes = peak->get<int64_t>();
}

}  // namespace d2k::record
