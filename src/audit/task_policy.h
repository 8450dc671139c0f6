#pragma once
// The one place where a task's rules become what the runtime audit enforces: the rules of
// implementation_requirements.yaml and the workload's peak auxiliary memory bound from config.json.

#include <cstdint>
#include <optional>

#include "audit/audit_policy.h"
#include "task/implementation_rules.h"

namespace d2k::audit {

// `custom_kernels: required` forbids library and PyTorch compute kernels and requires a kernel of
// the candidate's own; a forbidden cuBLAS, cuBLASLt or cuDNN library (the defaults forbid all
// three) forbids library compute kernels on its own; `allow_host_sync` allows device-to-host
// copies and host synchronizations inside the call. `peak_aux_bytes_limit` is the workload's
// evaluated `evaluation.peak_aux_bytes`, if the task declares one.
AuditPolicy audit_policy(const task::ImplementationRules& rules,
                         std::optional<int64_t> peak_aux_bytes_limit);

}  // namespace d2k::audit
