#pragma once

#include <memory>
#include <string>
#include <vector>

#include "worker/implementation.h"
#include <map>

#include "protocol/tensor_file.h"
#include "native/call_arguments.h"
#include "native/library.h"
#include "python/session.h"
#include "runtime/buffer.h"

namespace d2k::worker {

// A native candidate (docs/native-abi.md): its shared object loaded into the worker, called with
// the session's tensors as DLTensors and with outputs and a workspace the harness allocates.
// A timed call is one C function call on a prebuilt argument frame; no Python runs during it.
class NativeImplementation : public Implementation {
 public:
  // Loads `library`; throws native::LoadError. On the GPU (`on_device`), outputs and workspace
  // are device memory and calls launch on `stream`, the harness stream; on the CPU it is null.
  NativeImplementation(python::Session& session, const std::filesystem::path& library,
                       std::vector<std::string> arguments, bool on_device, CUstream stream);

  // Allocates the workload's outputs, runs d2k_native_setup and allocates the workspace it asks
  // for; whatever an earlier workload had is freed first.
  std::optional<uint64_t> prepare(int handle,
                                  const std::vector<protocol::TensorFile>& output_specs) override;
  // Fills the outputs with 0xFF bytes (NaN for floating-point dtypes).
  void reset_outputs() override;
  void call(int handle) override;
  std::vector<python::TensorInfo> outputs(size_t expected) const override;
  void release_outputs() override {}  // the outputs live as long as the workload
  void poison_outputs(size_t, CUstream) override { reset_outputs(); }
  void forget(int handle) override { frames_.erase(handle); }
  // The workspace the harness allocated for it, plus what the call itself allocated through the
  // driver or runtime (the tracer's allocation records, net of frees, at their highest).
  std::optional<int64_t> aux_memory_bytes(int64_t driver_allocated_peak, size_t) override;
  std::unique_ptr<timing::TimingBackend> cuda_backend(Device& device) override;

 private:
  // The argument frame of `handle`, built on its first call. Timed calls rotate over several
  // argument lists, so each keeps its frame.
  const native::CallArguments& frame(int handle);

  python::Session& session_;
  native::Library library_;
  std::vector<std::string> arguments_;
  std::vector<protocol::TensorFile> output_specs_;
  bool on_device_;
  CUstream stream_;
  std::vector<std::unique_ptr<runtime::Buffer>> outputs_;
  std::unique_ptr<runtime::Buffer> workspace_;
  std::map<int, std::unique_ptr<native::CallArguments>> frames_;
};

}  // namespace d2k::worker
