#pragma once

#include "runtime/cuda_context.h"
#include "timing/timing_backend.h"

namespace d2k::eval {

// Timing a native candidate on the GPU: the same events on the harness stream as
// CudaTimingBackend, but graphs are captured with the driver's stream capture, so neither
// PyTorch nor the interpreter takes part in a timed call.
class NativeTimingBackend : public timing::TimingBackend {
 public:
  NativeTimingBackend(const runtime::CudaContext& context, const runtime::CudaStream& stream)
      : context_(context), stream_(stream) {}

  std::string name() const override { return "cuda_driver"; }
  std::unique_ptr<Interval> new_interval() override;
  void synchronize() override { context_.synchronize(); }
  bool supports_graphs() const override { return true; }
  std::unique_ptr<Graph> capture(const std::function<void()>& body) override;

 private:
  const runtime::CudaContext& context_;
  const runtime::CudaStream& stream_;
};

}  // namespace d2k::eval
