#include "worker/cuda_timing_backend.h"

namespace d2k::worker {
namespace {

class SessionGraph : public timing::TimingBackend::Graph {
 public:
  explicit SessionGraph(std::unique_ptr<python::CapturedGraph> graph) : graph_(std::move(graph)) {}
  void launch() override { graph_->launch(); }

 private:
  std::unique_ptr<python::CapturedGraph> graph_;
};

}  // namespace

std::unique_ptr<timing::TimingBackend::Graph> CudaTimingBackend::capture(
    const std::function<void()>& body) {
  return std::make_unique<SessionGraph>(session_.capture_graph(body));
}

}  // namespace d2k::worker
