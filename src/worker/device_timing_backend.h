#pragma once

#include <chrono>
#include <memory>
#include <optional>

#include "timing/timing_backend.h"
#include "worker/device.h"
#include "worker/event_interval.h"

namespace d2k::worker {

// What the two GPU timing backends share: CUDA events recorded by d2k on the harness stream,
// synchronization of the whole context (so work a candidate left on another stream is finished
// before a sample is read), the host's steady clock and the NVML readings. They differ only in
// how a graph is captured.
class DeviceTimingBackend : public timing::TimingBackend {
 public:
  explicit DeviceTimingBackend(Device& device) : device_(device) {}
  std::unique_ptr<Interval> new_interval() override {
    return std::make_unique<EventInterval>(device_.harness_stream());
  }
  void synchronize() override { device_.synchronize(); }
  bool supports_graphs() const override { return true; }
  double host_now_s() const override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  std::optional<record::DeviceReading> read_device() override { return device_.read(); }

 protected:
  Device& device_;
};

}  // namespace d2k::worker
