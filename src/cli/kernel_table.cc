#include "cli/kernel_table.h"

#include <fmt/format.h>

#include "audit/kernel_origin.h"
#include "cli/result_table.h"

namespace d2k::cli {

std::string render_kernels(const record::EvaluationResult& result) {
  std::string out = fmt::format("evaluation {} · {} · {}\n", result.id, result.task_id,
                                result.impl_kind);
  for (const auto& w : result.workloads) {
    out += fmt::format("\n{} — {}\n", w.workload, record::to_string(w.verdict));
    if (!w.audit) {
      out += "  no audit recorded\n";
      continue;
    }
    const record::KernelAudit& audit = *w.audit;
    if (!audit.unavailable.empty()) {
      out += "  not audited: " + audit.unavailable + "\n";
      continue;
    }
    if (!audit.tracer.empty()) out += "  traced by " + audit.tracer + "\n";
    out += fmt::format("  harness: device {}, stream {}; peak auxiliary memory: {}\n",
                       audit.harness_device, audit.harness_stream,
                       audit.peak_aux_bytes ? fmt::format("{} bytes", *audit.peak_aux_bytes)
                                            : "not measured");
    out += fmt::format("  {:<12} {:>4} {:>6} {:>16} {:>14} {:>5} {:>13} {:>10}  {}\n", "origin",
                       "dev", "stream", "grid", "block", "regs", "smem s+d", "time", "kernel");
    for (const auto& k : audit.kernels) {
      out += fmt::format("  {:<12} {:>4} {:>6} {:>16} {:>14} {:>5} {:>13} {:>10}  {}\n",
                         audit::to_string(audit::kernel_origin(k.name)), k.device, k.stream,
                         fmt::format("{}x{}x{}", k.grid[0], k.grid[1], k.grid[2]),
                         fmt::format("{}x{}x{}", k.block[0], k.block[1], k.block[2]),
                         k.registers_per_thread,
                         fmt::format("{}+{}", k.static_shared_bytes, k.dynamic_shared_bytes),
                         format_seconds(k.duration_s), k.name);
    }
    for (const auto& t : audit.transfers) {
      out += fmt::format("  {:<12} {:>4} {:>6}  {} bytes{}\n", t.operation, t.device, t.stream,
                         t.bytes, t.kind.empty() ? "" : " " + t.kind);
    }
    for (const auto& f : w.findings) {
      out += fmt::format("  finding {}: {}\n", f.reason_code, f.message);
    }
  }
  return out;
}

}  // namespace d2k::cli
