#include "audit/audit_rules.h"

#include <algorithm>
#include <map>
#include <string_view>

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

// A copy whose destination is host memory.
bool reaches_the_host(const record::AuditedTransfer& transfer) {
  return transfer.operation == "memcpy" && (transfer.kind == "DtoH" || transfer.kind == "AtoH");
}

// A synchronize API that blocks the host until device work finishes (a stream waiting for an
// event blocks only the device).
bool blocks_the_host(const record::AuditedSync& sync) {
  return sync.kind == "stream_synchronize" || sync.kind == "event_synchronize" ||
         sync.kind == "context_synchronize";
}

std::string describe(const record::AuditedSync& sync) {
  return sync.stream ? fmt::format("{} of stream {}", sync.kind, *sync.stream) : sync.kind;
}

std::string seconds(double s) {
  return s >= 1e-3 ? fmt::format("{:.3f} ms", s * 1e3) : fmt::format("{:.1f} us", s * 1e6);
}

double kernel_seconds(const record::KernelAudit& audit) {
  double total = 0.0;
  for (const record::AuditedKernel& kernel : audit.kernels) total += kernel.duration_s;
  return total;
}

uint64_t launches(const record::KernelAudit& audit) {
  uint64_t total = 0;
  for (const record::AuditedKernel& kernel : audit.kernels) total += kernel.launches;
  return total;
}

// Kernel time per call of the trace.
double kernel_seconds_per_call(const record::KernelAudit& audit) {
  return kernel_seconds(audit) / std::max<uint32_t>(audit.calls, 1);
}

// One trace's side of the work comparison: its totals, then its kernels grouped by name (longest
// total first), then, for the trace on timed inputs, what it copied or filled.
void add_call_evidence(std::vector<std::string>& evidence, std::string_view call,
                       const record::KernelAudit& audit, bool with_transfers) {
  const uint64_t count = launches(audit);
  std::string totals = fmt::format("{}: {} kernel launch{}, {} of kernel time", call, count,
                                   count == 1 ? "" : "es", seconds(kernel_seconds(audit)));
  if (audit.calls > 1) {
    totals = fmt::format("{} in {} back-to-back calls ({} per call)", totals, audit.calls,
                         seconds(kernel_seconds_per_call(audit)));
  }
  evidence.push_back(std::move(totals));
  struct Group {
    uint64_t launches = 0;
    double seconds = 0.0;
  };
  std::map<std::string, Group> groups;
  for (const record::AuditedKernel& kernel : audit.kernels) {
    Group& group = groups[kernel.name];
    group.launches += kernel.launches;
    group.seconds += kernel.duration_s;
  }
  std::vector<std::pair<std::string, Group>> ordered(groups.begin(), groups.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return a.second.seconds > b.second.seconds;
  });
  for (size_t i = 0; i < ordered.size() && i < kEvidenceLimit; ++i) {
    evidence.push_back(fmt::format("{}: {} x{}, {}", call, ordered[i].first,
                                   ordered[i].second.launches, seconds(ordered[i].second.seconds)));
  }
  if (!with_transfers) return;
  std::vector<std::string> transfers;
  for (const record::AuditedTransfer& transfer : audit.transfers) {
    add_evidence(transfers, fmt::format("{}: {}", call, describe(transfer)));
  }
  evidence.insert(evidence.end(), transfers.begin(), transfers.end());
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

  std::vector<std::string> host_round_trips;
  for (const record::AuditedTransfer& transfer : audit.transfers) {
    if (reaches_the_host(transfer)) {
      add_evidence(host_round_trips,
                   fmt::format("{} on stream {}", describe(transfer), transfer.stream));
    }
  }
  for (const record::AuditedSync& sync : audit.synchronizations) {
    if (blocks_the_host(sync)) add_evidence(host_round_trips, describe(sync));
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
  if (!policy.host_sync_allowed && !host_round_trips.empty()) {
    findings.push_back(finding(
        "host_sync",
        "the call copied device memory to the host or waited for the device before returning; "
        "this task needs no host decision, and a round trip lets a call pick its work by values "
        "it read back",
        host_round_trips));
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

std::vector<record::Finding> work_findings(const record::KernelAudit& fresh,
                                           const record::KernelAudit& timed_inputs,
                                           const AuditPolicy& policy) {
  if (!fresh.unavailable.empty() || !timed_inputs.unavailable.empty()) return {};
  const double fresh_s = kernel_seconds_per_call(fresh);
  const double timed_s = kernel_seconds_per_call(timed_inputs);
  if (fresh_s <= 0.0 || timed_s >= policy.min_timed_input_work_share * fresh_s) return {};
  std::vector<std::string> evidence;
  add_call_evidence(evidence, "fresh inputs", fresh, false);
  add_call_evidence(evidence, "timed inputs", timed_inputs, true);
  return {finding(
      "cached_work",
      fmt::format("on input sets the timed calls had used, a call ran {} of kernel time, "
                  "{:.1f}% of the {} it ran on fresh inputs; a call that does the work needs at "
                  "least {:.0f}%",
                  seconds(timed_s), 100.0 * timed_s / fresh_s, seconds(fresh_s),
                  100.0 * policy.min_timed_input_work_share),
      std::move(evidence))};
}

std::vector<record::Finding> traced_call_findings(
    const record::KernelAudit& fresh, const std::optional<record::KernelAudit>& timed_inputs,
    const AuditPolicy& policy) {
  if (!fresh.unavailable.empty()) return {};
  std::vector<record::Finding> found = audit_findings(fresh, policy);
  if (!timed_inputs || !timed_inputs->unavailable.empty()) return found;
  for (record::Finding& finding : work_findings(fresh, *timed_inputs, policy)) {
    found.push_back(std::move(finding));
  }
  for (record::Finding& finding : audit_findings(*timed_inputs, policy)) {
    finding.message = "on a timed input set: " + finding.message;
    found.push_back(std::move(finding));
  }
  return found;
}

}  // namespace d2k::audit
