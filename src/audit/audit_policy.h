#pragma once
// What the runtime audit enforces for one workload (docs/protocol.md, "Runtime audit").

#include <cstdint>
#include <optional>

namespace d2k::audit {

struct AuditPolicy {
  bool library_compute_forbidden = false;  // cuBLAS, cuBLASLt and cuDNN kernels are violations
  bool aten_compute_forbidden = false;     // so are PyTorch's compute kernels (glue is allowed)
  bool custom_kernels_required = false;    // the call must run at least one kernel of its own
  // With ATen compute forbidden, fills and copies may take at most this share of the call's
  // kernel time: a cast is a copy kernel, and a whole computation must not hide in casts.
  double glue_time_share_limit = 0.1;
  // The task's bound on device memory beyond inputs and outputs, for this workload.
  std::optional<int64_t> peak_aux_bytes_limit;
  // Device-to-host copies and host synchronizations inside the call are allowed: the task's
  // semantics need a host decision (implementation_requirements.yaml says why).
  bool host_sync_allowed = false;
  // A call on an input set the timed calls used must spend at least this share of the kernel
  // time a call on fresh inputs spends; less is cached work. Legitimate differences between two
  // calls (warm or cold L2, clocks still rising, data-dependent launches) stay well above it,
  // while a cache that replaces the computation by a copy lands near zero (docs/protocol.md,
  // "Runtime audit").
  double min_timed_input_work_share = 0.25;
};

}  // namespace d2k::audit
