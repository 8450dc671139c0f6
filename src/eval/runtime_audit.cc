#include "eval/runtime_audit.h"

#include <fmt/format.h>

#include "audit/audit_rules.h"
#include "audit/task_policy.h"

namespace d2k::eval {

RuntimeAudit RuntimeAudit::for_workload(const task::Task& task, const task::Workload& workload,
                                        task::ImplKind kind) {
  RuntimeAudit audit;
  if (kind == task::ImplKind::reference) return audit;
  if (task.evaluation.device == task::Device::cpu) {
    audit.untraced_ = "CPU task: its calls launch no device work, and d2k has no host tracer";
    return audit;
  }
  audit.traces_ = true;
  audit.policy_ = audit::audit_policy(task.rules, workload.peak_aux_bytes);
  return audit;
}

void RuntimeAudit::add_message(const nlohmann::json& message) {
  try {
    audit_ = message.at("audit").get<record::KernelAudit>();
  } catch (const nlohmann::json::exception& error) {
    audit_ = record::KernelAudit{};
    audit_->unavailable = std::string("the worker's audit message is malformed: ") + error.what();
  }
}

void RuntimeAudit::apply(record::WorkloadResult& result) const {
  if (!traces_) {
    if (!untraced_.empty()) {
      result.audit = record::KernelAudit{};
      result.audit->unavailable = untraced_;
    }
    return;
  }
  if (!audit_) {
    // A worker that stopped early (a failure, a crash) never reached the traced call.
    if (result.verdict == record::Verdict::passed) {
      result.audit = record::KernelAudit{};
      result.audit->unavailable = "the candidate worker reported no audit";
    }
    return;
  }
  result.audit = audit_;
  if (!audit_->unavailable.empty()) return;
  result.findings = audit::audit_findings(*audit_, policy_);
  if (result.findings.empty() || result.verdict != record::Verdict::passed) return;
  std::vector<std::string> lines;
  for (const record::Finding& finding : result.findings) {
    lines.push_back(finding.evidence.empty()
                        ? fmt::format("{}: {}", finding.reason_code, finding.message)
                        : fmt::format("{}: {} ({})", finding.reason_code, finding.message,
                                      fmt::join(finding.evidence, "; ")));
  }
  result.verdict = record::Verdict::invalid;
  result.reason_code = result.findings.front().reason_code;
  result.message = fmt::format("runtime audit: {}", fmt::join(lines, "\n"));
  result.latency.reset();
}

}  // namespace d2k::eval
