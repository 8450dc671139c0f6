#pragma once

#include "python/session.h"
#include "runtime/cuda_context.h"
#include "timing/timing_backend.h"

namespace d2k::eval {

// Timing on the GPU: intervals are CUDA events recorded by d2k on the harness stream (which is
// PyTorch's and Triton's current stream during the call); graphs are captured through the
// session's torch.cuda.CUDAGraph. Synchronization waits for the whole context, so work a
// candidate left on another stream is finished before a sample is read.
class CudaTimingBackend : public timing::TimingBackend {
 public:
  CudaTimingBackend(python::Session& session, const runtime::CudaContext& context,
                    const runtime::CudaStream& stream)
      : session_(session), context_(context), stream_(stream) {}

  std::string name() const override { return "cuda_events"; }
  std::unique_ptr<Interval> new_interval() override;
  void synchronize() override { context_.synchronize(); }
  bool supports_graphs() const override { return true; }
  std::unique_ptr<Graph> capture(const std::function<void()>& body) override;

 private:
  python::Session& session_;
  const runtime::CudaContext& context_;
  const runtime::CudaStream& stream_;
};

}  // namespace d2k::eval
