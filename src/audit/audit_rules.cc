#include "audit/audit_rules.h"

#include <algorithm>

#include <fmt/format.h>

#include "audit/kernel_origin.h"

namespace d2k::audit {
namespace {

// Distinct names, in first-seen order, at most kEvidenceLimit.
void add_evidence(std::vector<std::string>& evidence, const std::string& item) {
  if (evidence.size() < kEvidenceLimit &&
      std::find(evidence.begin(), evidence.end(), item) == evidence.end()) {
    evidence.push_back(item);
  }
}

record::Finding finding(const std::string& reason_code, std::string message,
                        std::vector<std::string> evidence) {
  record::Finding f;
  f.rule = "runtime_audit:" + reason_code;
  f.reason_code = reason_code;
  f.message = std::move(message);
  f.evidence = std::move(evidence);
  return f;
}

std::string describe(const record::AuditedTransfer& transfer) {
  return fmt::format("{}{}{} of {} bytes", transfer.operation, transfer.kind.empty() ? "" : " ",
                     transfer.kind, transfer.bytes);
}

}  // namespace

std::vector<record::Finding> audit_findings(const record::KernelAudit& audit,
                                            const AuditPolicy& policy) {
  std::vector<std::string> library, aten, glue, side_stream, other_device;
  double total_s = 0.0;
  double glue_s = 0.0;
  int custom = 0;
  for (const record::AuditedKernel& kernel : audit.kernels) {
    total_s += kernel.duration_s;
    switch (kernel_origin(kernel.name)) {
      case KernelOrigin::library: add_evidence(library, kernel.name); break;
      case KernelOrigin::aten_compute: add_evidence(aten, kernel.name); break;
      case KernelOrigin::aten_glue:
        add_evidence(glue, kernel.name);
        glue_s += kernel.duration_s;
        break;
      case KernelOrigin::custom: ++custom; break;
    }
    if (kernel.device != audit.harness_device) {
      add_evidence(other_device, fmt::format("{} on device {}", kernel.name, kernel.device));
    } else if (kernel.stream != audit.harness_stream) {
      add_evidence(side_stream, fmt::format("{} on stream {}", kernel.name, kernel.stream));
    }
  }
  for (const record::AuditedTransfer& transfer : audit.transfers) {
    if (transfer.device != audit.harness_device) {
      add_evidence(other_device, fmt::format("{} on device {}", describe(transfer), transfer.device));
    } else if (transfer.stream != audit.harness_stream) {
      add_evidence(side_stream, fmt::format("{} on stream {}", describe(transfer), transfer.stream));
    }
  }

  std::vector<record::Finding> findings;
  if (policy.library_compute_forbidden && !library.empty()) {
    findings.push_back(finding("library_compute",
                               "the call ran cuBLAS, cuBLASLt or cuDNN kernels, which this task "
                               "forbids for its computation",
                               library));
  }
  if (policy.aten_compute_forbidden && !aten.empty()) {
    findings.push_back(finding("torch_compute",
                               "the call ran PyTorch compute kernels; this task allows PyTorch "
                               "only as glue (allocation, fills, copies)",
                               aten));
  }
  if (policy.aten_compute_forbidden && total_s > 0.0 &&
      glue_s > policy.glue_time_share_limit * total_s) {
    findings.push_back(finding(
        "glue_limit",
        fmt::format("PyTorch fills and copies took {:.1f}% of the call's kernel time; glue may "
                    "take at most {:.1f}%",
                    100.0 * glue_s / total_s, 100.0 * policy.glue_time_share_limit),
        glue));
  }
  if (policy.custom_kernels_required && custom == 0) {
    std::vector<std::string> ran;
    for (const auto& kernel : audit.kernels) add_evidence(ran, kernel.name);
    findings.push_back(finding("no_custom_kernel",
                               audit.kernels.empty()
                                   ? "the call launched no kernel; this task requires kernels of "
                                     "the candidate's own"
                                   : "every kernel the call launched came from a library or "
                                     "PyTorch; this task requires kernels of the candidate's own",
                               ran));
  }
  if (!side_stream.empty()) {
    findings.push_back(finding(
        "side_stream",
        fmt::format("work ran outside the harness's current stream {}; timing covers only that "
                    "stream",
                    audit.harness_stream),
        side_stream));
  }
  if (!other_device.empty()) {
    findings.push_back(finding(
        "other_device",
        fmt::format("work ran on a device other than the evaluated device {}", audit.harness_device),
        other_device));
  }
  if (policy.peak_aux_bytes_limit && audit.peak_aux_bytes &&
      *audit.peak_aux_bytes > *policy.peak_aux_bytes_limit) {
    findings.push_back(finding(
        "peak_memory",
        fmt::format("the call held {} bytes of device memory beyond its inputs and outputs; the "
                    "task's bound for this workload is {} bytes",
                    *audit.peak_aux_bytes, *policy.peak_aux_bytes_limit),
        {}));
  }
  return findings;
}

}  // namespace d2k::audit
