#pragma once
// Fitting an audit into one worker message. The channel carries lines of at most 4 MiB, and a
// call may launch many thousands of kernels.

#include <cstddef>

#include "record/kernel_audit.h"

namespace d2k::audit {

// Entries (kernels, transfers and synchronizations) one audit message carries at most: about
// 1 MiB of JSON.
inline constexpr size_t kMaxAuditEntries = 4096;

// `audit` as it is when it has at most `max_entries` entries. Otherwise kernels that share a
// name, device and stream become one entry whose duration and launch count are their sums (grid,
// block, registers and shared memory are the first launch's), transfers that share an operation,
// kind, device and stream become one whose bytes are their sum, and synchronizations of the same
// kind and stream become one: audit_findings() and work_findings() find the same reasons with
// the same messages, only per-launch detail is lost (evidence names the merged entries). When
// even that is too many, the audit is returned empty and `unavailable` says why.
record::KernelAudit fit_message(record::KernelAudit audit, size_t max_entries = kMaxAuditEntries);

}  // namespace d2k::audit
