#include "runtime/cuda_graph.h"

namespace d2k::runtime {

#ifdef D2K_HAVE_CUDA

CudaGraph::CudaGraph(CUstream stream, const std::function<void()>& body) {
  const auto& driver = CudaDriver::get();
  check(driver.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL),
        "cuStreamBeginCapture");
  try {
    body();
  } catch (...) {
    // Leave the stream usable: a stream still capturing fails every later launch on it.
    CUgraph partial = nullptr;
    driver.cuStreamEndCapture(stream, &partial);
    if (partial != nullptr) driver.cuGraphDestroy(partial);
    throw;
  }
  check(driver.cuStreamEndCapture(stream, &graph_), "cuStreamEndCapture");
  const CUresult instantiated = driver.cuGraphInstantiateWithFlags(&exec_, graph_, 0);
  if (instantiated != CUDA_SUCCESS) {
    driver.cuGraphDestroy(graph_);
    check(instantiated, "cuGraphInstantiateWithFlags");
  }
}

CudaGraph::~CudaGraph() {
  const auto& driver = CudaDriver::get();
  driver.cuGraphExecDestroy(exec_);
  driver.cuGraphDestroy(graph_);
}

void CudaGraph::launch(CUstream stream) const {
  check(CudaDriver::get().cuGraphLaunch(exec_, stream), "cuGraphLaunch");
}

#else

CudaGraph::CudaGraph(CUstream, const std::function<void()>&) {
  throw CudaError("this d2k was built without the CUDA toolkit");
}
CudaGraph::~CudaGraph() = default;
void CudaGraph::launch(CUstream) const {
  throw CudaError("this d2k was built without the CUDA toolkit");
}

#endif

}  // namespace d2k::runtime
