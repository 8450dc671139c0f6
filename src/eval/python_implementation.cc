#include "eval/python_implementation.h"

#include "eval/cuda_timing_backend.h"

namespace d2k::eval {

PythonImplementation::PythonImplementation(python::Session& session,
                                           const std::filesystem::path& file)
    : session_(session) {
  session_.load_implementation(file);
}

std::unique_ptr<timing::TimingBackend> PythonImplementation::cuda_backend(
    const runtime::CudaContext& context, const runtime::CudaStream& stream) {
  return std::make_unique<CudaTimingBackend>(session_, context, stream);
}

}  // namespace d2k::eval
