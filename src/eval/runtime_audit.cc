#include "eval/runtime_audit.h"

#include <fmt/format.h>

#include "audit/audit_rules.h"
#include "audit/task_policy.h"

namespace d2k::eval {

RuntimeAudit RuntimeAudit::for_workload(const task::Task& task, const task::Workload& workload,
                                        task::ImplKind kind) {
  RuntimeAudit audit;
  // The task's own code (its definition and the library paths it times) is not audited.
  if (kind == task::ImplKind::reference || kind == task::ImplKind::anchor) return audit;
  if (task.evaluation.device == task::Device::cpu) {
    audit.untraced_ = "CPU task: its calls launch no device work, and d2k has no host tracer";
    return audit;
  }
  audit.traces_ = true;
  audit.policy_ = audit::audit_policy(task.rules, workload.peak_aux_bytes);
  return audit;
}

std::vector<record::Finding> RuntimeAudit::add_fresh(const record::KernelAudit& audit) {
  fresh_ = audit;
  return findings();
}

void RuntimeAudit::add_timed(const record::KernelAudit& audit) { timed_ = audit; }

std::vector<record::Finding> RuntimeAudit::findings() const {
  if (!traces_ || !fresh_) return {};
  return audit::traced_call_findings(*fresh_, timed_, policy_);
}

void RuntimeAudit::apply(record::WorkloadResult& result) const {
  if (!traces_) {
    if (!untraced_.empty()) {
      result.audit = record::KernelAudit{};
      result.audit->unavailable = untraced_;
    }
    return;
  }
  if (!fresh_) {
    // A worker that stopped early (a failure, a crash) never reached the traced call.
    if (result.verdict == record::Verdict::passed) {
      result.audit = record::KernelAudit{};
      result.audit->unavailable = "the candidate worker reported no audit";
    }
    return;
  }
  result.audit = fresh_;
  result.timed_audit = timed_;
  result.findings = findings();
  if (result.findings.empty()) return;
  std::vector<std::string> lines;
  for (const record::Finding& finding : result.findings) {
    lines.push_back(finding.evidence.empty()
                        ? fmt::format("{}: {}", finding.reason_code, finding.message)
                        : fmt::format("{}: {} ({})", finding.reason_code, finding.message,
                                      fmt::join(finding.evidence, "; ")));
  }
  // A workload stopped before timing by the fresh call's findings failed with the first one's
  // reason; its message now lists them all.
  const bool stopped_by_audit = result.verdict == record::Verdict::invalid &&
                                result.reason_code == result.findings.front().reason_code;
  if (result.verdict != record::Verdict::passed && !stopped_by_audit) return;
  result.verdict = record::Verdict::invalid;
  result.reason_code = result.findings.front().reason_code;
  result.message = fmt::format("runtime audit: {}", fmt::join(lines, "\n"));
  result.latency.reset();
}

}  // namespace d2k::eval
