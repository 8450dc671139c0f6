#pragma once
// The orchestrator's side of the runtime audit (docs/protocol.md, "Runtime audit"): which
// workloads get traced calls, what the traced call before timing decides, and what the audits
// do to a workload's result.

#include <optional>
#include <string>
#include <vector>

#include "audit/audit_policy.h"
#include "record/result.h"
#include "task/task.h"

namespace d2k::eval {

class RuntimeAudit {
 public:
  // The audit of one workload of `kind`: candidates, baselines and experts of a GPU task get
  // traced calls checked against the task's policy; the reference (which defines the operator) is
  // not audited; a CPU task's workloads are recorded as not audited, with the reason.
  static RuntimeAudit for_workload(const task::Task& task, const task::Workload& workload,
                                   task::ImplKind kind);

  // Whether the candidate worker makes traced calls (protocol::Setup::audit_calls).
  bool traces() const { return traces_; }
  // The traced call on fresh inputs, before timing. Returns its findings under the task's
  // policy: when there are any, the calls are not timed.
  std::vector<record::Finding> add_fresh(const record::KernelAudit& audit);
  // The traced call on an input set the timed calls used, after timing: checked by the same
  // rules, and its work compared with the fresh call's (cached_work).
  void add_timed(const record::KernelAudit& audit);

  // Records the audits in `result`. A traced call with findings makes a passed workload
  // `invalid` with the first finding's reason code (the latency is dropped); a workload that
  // already failed keeps its verdict, with the findings as evidence. A call that could not be
  // traced leaves the verdict as it is; the record says why.
  void apply(record::WorkloadResult& result) const;

 private:
  RuntimeAudit() = default;
  std::vector<record::Finding> findings() const;

  bool traces_ = false;
  audit::AuditPolicy policy_;
  std::string untraced_;  // why a workload has no traced call, when it is recorded
  std::optional<record::KernelAudit> fresh_;
  std::optional<record::KernelAudit> timed_;
};

}  // namespace d2k::eval
