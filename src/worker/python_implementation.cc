#include "worker/python_implementation.h"

#include <algorithm>
#include <set>

#include "worker/cuda_timing_backend.h"

namespace d2k::worker {

PythonImplementation::PythonImplementation(python::Session& session,
                                           const std::filesystem::path& file,
                                           const std::filesystem::path& import_dir)
    : session_(session) {
  session_.load_implementation(file, import_dir);
}

void PythonImplementation::watch_memory() {
  allocated_before_call_ = session_.device_bytes_allocated();
  session_.reset_peak_device_bytes();
}

std::optional<int64_t> PythonImplementation::aux_memory_bytes(int64_t, size_t expected_outputs) {
  int64_t outputs = 0;
  try {
    // Device outputs only; one storage shared by several outputs is counted once.
    std::set<const void*> seen;
    for (const python::TensorInfo& output : session_.last_outputs(expected_outputs)) {
      if (output.on_device && seen.insert(output.data).second) {
        outputs += static_cast<int64_t>(output.nbytes());
      }
    }
  } catch (const python::OutputError&) {
    return std::nullopt;  // not the declared outputs: the checked trials report why
  }
  return std::max<int64_t>(0, session_.peak_device_bytes() - allocated_before_call_ - outputs);
}

void PythonImplementation::poison_outputs(size_t expected, CUstream stream) {
  try {
    for (const python::TensorInfo& output : session_.last_outputs(expected)) {
      if (output.is_contiguous()) {
        runtime::fill_bytes(output.data, output.nbytes(), 0xFF, output.on_device, stream);
      }
    }
  } catch (const python::OutputError&) {
    // Not the declared outputs: the last-timed-call check reports why.
  }
}

std::unique_ptr<timing::TimingBackend> PythonImplementation::cuda_backend(Device& device) {
  return std::make_unique<CudaTimingBackend>(session_, device);
}

}  // namespace d2k::worker
