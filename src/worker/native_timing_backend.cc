#include "worker/native_timing_backend.h"

#include "runtime/cuda_graph.h"

namespace d2k::worker {
namespace {

class DriverGraph : public timing::TimingBackend::Graph {
 public:
  DriverGraph(CUstream stream, const std::function<void()>& body)
      : stream_(stream), graph_(stream, body) {}
  void launch() override { graph_.launch(stream_); }

 private:
  CUstream stream_;
  runtime::CudaGraph graph_;
};

}  // namespace

std::unique_ptr<timing::TimingBackend::Graph> NativeTimingBackend::capture(
    const std::function<void()>& body) {
  return std::make_unique<DriverGraph>(device_.harness_stream(), body);
}

}  // namespace d2k::worker
