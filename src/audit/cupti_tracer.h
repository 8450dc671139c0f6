#pragma once
// The runtime audit's tracer on a GPU: CUPTI's activity API, opened at run time. d2k never links
// libcupti, so the same binary runs where it is missing; the audit then says it is unavailable
// and why (docs/protocol.md, "Runtime audit").

#include <cstdint>
#include <memory>
#include <string>

#include "audit/activity_tracer.h"

namespace d2k::audit {

struct TracerOpening {
  std::unique_ptr<ActivityTracer> tracer;  // null when unavailable
  std::string unavailable;                 // why, when it is
};

// A CUPTI tracer for the calls the harness makes on `harness_stream` (a CUstream) of device
// `harness_device`. The library is taken, in order, from: a copy already loaded in this process
// (PyTorch brings its own; two copies would compete for the driver's callbacks), $D2K_CUPTI,
// $CUDA_HOME and /usr/local/cuda (lib64 and extras/CUPTI/lib64), then the dynamic loader's
// search path. Only one tracer may record at a time in a process.
TracerOpening open_cupti_tracer(void* harness_stream, uint32_t harness_device);

}  // namespace d2k::audit
