#pragma once

#include "runtime/cuda_context.h"
#include "timing/timing_backend.h"

namespace d2k::worker {

// A timed interval on the GPU: a pair of CUDA events that d2k records on the harness stream.
class EventInterval : public timing::TimingBackend::Interval {
 public:
  explicit EventInterval(CUstream stream) : stream_(stream) {}
  void start() override { start_.record(stream_); }
  void stop() override { stop_.record(stream_); }
  double seconds() const override { return stop_.seconds_since(start_); }

 private:
  CUstream stream_;
  runtime::CudaEvent start_;
  runtime::CudaEvent stop_;
};

}  // namespace d2k::worker
