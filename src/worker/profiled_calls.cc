#include "worker/profiled_calls.h"

#include <fmt/format.h>

#ifdef D2K_HAVE_CUDA
#include <nvtx3/nvToolsExt.h>
#endif

#include "runtime/cuda_driver.h"

namespace d2k::worker {
namespace {

// Tells an attached profiler to start or stop collecting; without one the calls do nothing.
void profiler(bool start, const Device& device) {
#ifdef D2K_HAVE_CUDA
  if (!device.cuda()) return;
  const auto& driver = runtime::CudaDriver::get();
  runtime::check(start ? driver.cuProfilerStart() : driver.cuProfilerStop(),
                 start ? "cuProfilerStart" : "cuProfilerStop");
#else
  (void)start;
  (void)device;
#endif
}

// Names a call in the profiler's timeline; NVTX does nothing unless a tool injected itself.
class Range {
 public:
  explicit Range(const std::string& name) {
#ifdef D2K_HAVE_CUDA
    nvtxRangePushA(name.c_str());
#else
    (void)name;
#endif
  }
  ~Range() {
#ifdef D2K_HAVE_CUDA
    nvtxRangePop();
#endif
  }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;
};

}  // namespace

void make_profiled_calls(Implementation& implementation, int handle, const std::string& label,
                         int calls, const Device& device) {
  implementation.call(handle);
  device.synchronize();
  profiler(true, device);
  for (int i = 0; i < calls; ++i) {
    Range range(fmt::format("d2k {} call {}", label, i));
    implementation.call(handle);
    device.synchronize();
  }
  profiler(false, device);
}

}  // namespace d2k::worker
