#pragma once

#include <vector>

#include "audit/audit_policy.h"
#include "record/finding.h"
#include "record/kernel_audit.h"

namespace d2k::audit {

// The violations `audit` shows under `policy`, in a fixed order: library compute, ATen compute,
// glue over its limit, no kernel of the candidate's own, work on another stream, work on another
// device, peak auxiliary memory over its bound. Empty when the call is valid. Each finding's
// evidence names the offending kernels or transfers (at most kEvidenceLimit).
std::vector<record::Finding> audit_findings(const record::KernelAudit& audit,
                                            const AuditPolicy& policy);

inline constexpr size_t kEvidenceLimit = 8;

}  // namespace d2k::audit
