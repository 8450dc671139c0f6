#pragma once

#include "worker/device_timing_backend.h"

namespace d2k::worker {

// Timing a native candidate on the GPU: graphs are captured with the driver's stream capture,
// so neither PyTorch nor the interpreter takes part in a timed call.
class NativeTimingBackend : public DeviceTimingBackend {
 public:
  using DeviceTimingBackend::DeviceTimingBackend;
  std::string name() const override { return "cuda_driver"; }
  std::unique_ptr<Graph> capture(const std::function<void()>& body) override;
};

}  // namespace d2k::worker
