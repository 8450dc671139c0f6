#pragma once

#include <filesystem>

#include "eval/implementation.h"
#include "python/session.h"

namespace d2k::eval {

// run(...) of a Python file (the reference, or a Python candidate) in the worker's session.
class PythonImplementation : public Implementation {
 public:
  // Imports `file`; throws python::LoadError.
  PythonImplementation(python::Session& session, const std::filesystem::path& file);

  std::optional<uint64_t> prepare(int) override { return std::nullopt; }
  void reset_outputs() override {}  // every call returns new tensors
  void call(int handle) override { session_.call(handle); }
  std::vector<python::TensorInfo> outputs(size_t expected) const override {
    return session_.last_outputs(expected);
  }
  void release_outputs() override { session_.clear_last_result(); }
  std::unique_ptr<timing::TimingBackend> cuda_backend(const runtime::CudaContext& context,
                                                      const runtime::CudaStream& stream) override;

 private:
  python::Session& session_;
};

}  // namespace d2k::eval
