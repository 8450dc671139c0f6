#pragma once

#include <optional>
#include <vector>

#include "audit/audit_policy.h"
#include "record/finding.h"
#include "record/kernel_audit.h"

namespace d2k::audit {

// The violations `audit` shows under `policy`, in a fixed order: library compute, ATen compute,
// glue over its limit, no kernel of the candidate's own, work on another stream, work on another
// device, device-to-host copies or host synchronizations where the task needs no host decision,
// peak auxiliary memory over its bound. Empty when the call is valid. Each finding's evidence
// names the offending kernels, transfers or synchronizations (at most kEvidenceLimit).
std::vector<record::Finding> audit_findings(const record::KernelAudit& audit,
                                            const AuditPolicy& policy);

// The work comparison: `timed_inputs`, a trace of calls on input sets the timed calls had used,
// against `fresh`, a traced call on inputs the candidate had not seen. A cached_work finding when
// the first spent less than policy.min_timed_input_work_share of the second's kernel time per
// call (KernelAudit::calls), with both traces' kernels (grouped by name, longest first, at most
// kEvidenceLimit each) and the timed trace's transfers as evidence. Empty when either was not
// traced or the fresh call ran no kernel time to compare with.
std::vector<record::Finding> work_findings(const record::KernelAudit& fresh,
                                           const record::KernelAudit& timed_inputs,
                                           const AuditPolicy& policy);

// Every finding of a workload's traced calls, in the order the verdict takes them: the fresh
// call's, the work comparison of the two traces, then the timed-input trace's own (their
// messages start "on a timed input set: "; a cache that copies its answer shows there as
// missing kernels or a host round trip too, but cached_work names what it is). Without a trace
// on timed inputs (not made yet, or untraced), only the fresh call's. Empty when the fresh call
// was not traced.
std::vector<record::Finding> traced_call_findings(
    const record::KernelAudit& fresh, const std::optional<record::KernelAudit>& timed_inputs,
    const AuditPolicy& policy);

inline constexpr size_t kEvidenceLimit = 8;

}  // namespace d2k::audit
