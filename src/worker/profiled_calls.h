#pragma once
// The calls `d2k profile` shows a profiler (docs/profiling.md).

#include <string>

#include "worker/device.h"
#include "worker/implementation.h"

namespace d2k::worker {

// One warm-up call (so compilation and autotuning stay outside), then `calls` calls of
// `implementation` on argument list `handle`, each in an NVTX range "d2k <label> call <i>" and
// all of them between cuProfilerStart and cuProfilerStop on a GPU: a tool started with profiling
// off (`ncu --profile-from-start off`) sees these calls and nothing else of the worker. Throws
// what the calls throw.
void make_profiled_calls(Implementation& implementation, int handle, const std::string& label,
                         int calls, const Device& device);

}  // namespace d2k::worker
