#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "protocol/tensor_file.h"
#include "python/tensor_info.h"
#include "timing/timing_backend.h"
#include "worker/device.h"

namespace d2k::worker {

// What a worker calls: a Python run(...) through the embedded interpreter, or a native
// candidate's d2k_native_run. Either way the arguments are the session's argument list `handle`
// (built by get_inputs). Calls throw python::CallError or native::CallError when the candidate
// reports a failure.
class Implementation {
 public:
  virtual ~Implementation() = default;

  // Once per workload, before its first call, with the first trial's arguments and the shapes of
  // the reference's outputs. Returns the workspace a native candidate asked for; nullopt for
  // Python.
  virtual std::optional<uint64_t> prepare(int handle,
                                          const std::vector<protocol::TensorFile>& output_specs) = 0;
  // Before every checked (untimed) call: outputs the harness reuses are overwritten, so a call
  // that skips writing them cannot pass on an earlier call's results.
  virtual void reset_outputs() = 0;
  // One call; returns without synchronizing the device.
  virtual void call(int handle) = 0;
  // The last call's outputs, exactly `expected` of them. Throws python::OutputError.
  virtual std::vector<python::TensorInfo> outputs(size_t expected) const = 0;
  // Lets go of the last call's outputs where the implementation allocated them.
  virtual void release_outputs() = 0;
  // Fills the last call's outputs (`expected` of them) with 0xFF bytes (NaN for floating-point
  // dtypes), queued on `stream`, so that only a later call's writes survive.
  virtual void poison_outputs(size_t expected, CUstream stream) = 0;
  // An argument list is about to be released: forget anything built from it.
  virtual void forget(int /*handle*/) {}
  // Device memory one call holds beyond its inputs and outputs, for the runtime audit:
  // watch_memory() right before the call, aux_memory_bytes() once it has finished.
  // `driver_allocated_peak` is what the tracer saw allocated through the driver during the call
  // (net of frees, at its highest). nullopt when it cannot be measured.
  virtual void watch_memory() {}
  virtual std::optional<int64_t> aux_memory_bytes(int64_t driver_allocated_peak,
                                                  size_t expected_outputs) = 0;
  // The GPU timing backend that can capture this implementation's calls into a graph.
  virtual std::unique_ptr<timing::TimingBackend> cuda_backend(Device& device) = 0;
};

}  // namespace d2k::worker
