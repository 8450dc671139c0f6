#pragma once

#include "python/session.h"
#include "worker/device_timing_backend.h"

namespace d2k::worker {

// Timing a Python candidate on the GPU: graphs are captured through the session's
// torch.cuda.CUDAGraph on the harness stream, which is PyTorch's and Triton's current stream.
class CudaTimingBackend : public DeviceTimingBackend {
 public:
  CudaTimingBackend(python::Session& session, Device& device)
      : DeviceTimingBackend(device), session_(session) {}
  std::string name() const override { return "cuda_events"; }
  std::unique_ptr<Graph> capture(const std::function<void()>& body) override;

 private:
  python::Session& session_;
};

}  // namespace d2k::worker
