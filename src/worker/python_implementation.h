#pragma once

#include <filesystem>

#include "worker/implementation.h"
#include "python/session.h"

namespace d2k::worker {

// run(...) of a Python file (the reference, or a Python candidate) in the worker's session.
class PythonImplementation : public Implementation {
 public:
  // Imports `file` (with `import_dir` on sys.path, when given); throws python::LoadError.
  PythonImplementation(python::Session& session, const std::filesystem::path& file,
                       const std::filesystem::path& import_dir = {});

  std::optional<uint64_t> prepare(int, const std::vector<protocol::TensorFile>&) override {
    return std::nullopt;
  }
  void reset_outputs() override {}  // every call returns new tensors
  void call(int handle) override { session_.call(handle); }
  std::vector<python::TensorInfo> outputs(size_t expected) const override {
    return session_.last_outputs(expected);
  }
  void release_outputs() override { session_.clear_last_result(); }
  void poison_outputs(size_t expected, CUstream stream) override;
  // PyTorch's caching allocator: its peak during the call, less what it held before the call and
  // the outputs. The driver's allocation records are not used: the allocator's own cudaMalloc
  // calls appear there, and its cached blocks do not.
  void watch_memory() override;
  std::optional<int64_t> aux_memory_bytes(int64_t driver_allocated_peak,
                                          size_t expected_outputs) override;
  std::unique_ptr<timing::TimingBackend> cuda_backend(Device& device) override;

 private:
  python::Session& session_;
  int64_t allocated_before_call_ = 0;
};

}  // namespace d2k::worker
