#pragma once
// What the runtime audit needs from the device: a recording of everything one stretch of the
// worker's run launched (kernels, copies, fills), the times the host waited for the device, and
// the device memory it allocated. CUPTI provides it on a GPU (cupti_tracer.h).

#include <cstdint>
#include <stdexcept>

#include "record/kernel_audit.h"

namespace d2k::audit {

// The tracer could not start or collect (a CUPTI call failed, records were dropped).
class TracerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ActivityTrace {
  // Kernels and transfers, the harness's device and its stream in the tracer's numbering, and
  // the tracer's description; peak_aux_bytes is left for the caller, who knows the call's outputs.
  record::KernelAudit audit;
  // Device memory allocated through the driver or runtime (cuMemAlloc, cudaMalloc, pools) during
  // the trace, net of frees, at its highest. PyTorch's caching allocator hides most of its
  // allocations from this count, so Python candidates are measured through torch instead.
  int64_t peak_allocated_bytes = 0;
};

class ActivityTracer {
 public:
  virtual ~ActivityTracer() = default;
  // Begins recording. Throws TracerError.
  virtual void start() = 0;
  // Marks the moment the traced call returned, before the harness waits for its work: host
  // synchronizations from then on are the harness's, not the call's. A trace without the mark
  // keeps no synchronization. Throws TracerError.
  virtual void call_returned() = 0;
  // Ends recording and returns what ran since start(). The caller synchronizes the device first,
  // so every record is complete. Throws TracerError.
  virtual ActivityTrace stop() = 0;
};

}  // namespace d2k::audit
