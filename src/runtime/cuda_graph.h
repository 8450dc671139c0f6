#pragma once

#include <functional>

#include "runtime/cuda_context.h"

#ifndef D2K_HAVE_CUDA
using CUgraph = struct CUgraph_st*;
using CUgraphExec = struct CUgraphExec_st*;
#endif

namespace d2k::runtime {

// A CUDA graph recorded with the driver's stream capture, and its executable form. Native
// candidates are timed in graph mode through this, with no PyTorch involved.
class CudaGraph {
 public:
  // Records everything `body` queues on `stream` (global capture mode: a call that is illegal
  // during capture, on any thread, fails the capture). When `body` throws, the capture is ended
  // and the exception propagates.
  CudaGraph(CUstream stream, const std::function<void()>& body);
  ~CudaGraph();
  CudaGraph(const CudaGraph&) = delete;  // owns the graph and its executable
  CudaGraph& operator=(const CudaGraph&) = delete;

  void launch(CUstream stream) const;

 private:
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
};

}  // namespace d2k::runtime
