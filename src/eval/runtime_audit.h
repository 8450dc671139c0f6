#pragma once
// The orchestrator's side of the runtime audit (docs/protocol.md, "Runtime audit"): which
// workloads get a traced call, and what the worker's "audit" message does to a workload's result.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "audit/audit_policy.h"
#include "record/result.h"
#include "task/task.h"

namespace d2k::eval {

class RuntimeAudit {
 public:
  // The audit of one workload of `kind`: candidates, baselines and experts of a GPU task get a
  // traced call checked against the task's policy; the reference (which defines the operator) is
  // not audited; a CPU task's workloads are recorded as not audited, with the reason.
  static RuntimeAudit for_workload(const task::Task& task, const task::Workload& workload,
                                   task::ImplKind kind);

  // Whether the candidate worker makes the traced call (WorkerJob::audit_call).
  bool traces() const { return traces_; }
  // The worker's {"event": "audit", "audit": {...}} message.
  void add_message(const nlohmann::json& message);
  // Records the audit in `result`. A traced call with findings makes a passed workload
  // `invalid` with the first finding's reason code (the latency is dropped); a workload that
  // already failed keeps its verdict, with the findings as evidence. A call that could not be
  // traced leaves the verdict as it is; the record says why.
  void apply(record::WorkloadResult& result) const;

 private:
  RuntimeAudit() = default;

  bool traces_ = false;
  audit::AuditPolicy policy_;
  std::string untraced_;  // why a workload has no traced call, when it is recorded
  std::optional<record::KernelAudit> audit_;
};

}  // namespace d2k::eval
