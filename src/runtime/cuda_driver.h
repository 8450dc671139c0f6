#pragma once
// The CUDA driver API, opened at run time. d2k never links libcuda: the same binary starts on a
// machine without a driver (CI, laptops) and reports that no device is available, and it shares
// the primary context with PyTorch's own runtime inside the worker.

#include <stdexcept>
#include <string>

#ifdef D2K_HAVE_CUDA
#include <cuda.h>
#include <cudaProfiler.h>
#endif

namespace d2k::runtime {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

#ifdef D2K_HAVE_CUDA

namespace driver_types {
#define D2K_CUDA_ENTRY(fn) using fn = decltype(&::fn);
#include "runtime/cuda_driver_entries.inc"
#undef D2K_CUDA_ENTRY
}  // namespace driver_types

// Entry points d2k uses, resolved once. The two-step stringizing picks up cuda.h's versioned
// names (cuMemcpyDtoH -> cuMemcpyDtoH_v2), which are the ones the driver exports.
struct CudaDriver {
#define D2K_CUDA_ENTRY(fn) driver_types::fn fn = nullptr;
#include "runtime/cuda_driver_entries.inc"
#undef D2K_CUDA_ENTRY

  // Loads libcuda and calls cuInit once; throws CudaError with the reason if unavailable.
  static const CudaDriver& get();
};

// Throws CudaError naming `what` and the driver's error string unless `result` is CUDA_SUCCESS.
void check(CUresult result, const char* what);

#endif

// Whether a CUDA device can be used, and if not, why (no toolkit at build, no driver, no device).
struct DeviceAvailability {
  bool available = false;
  std::string reason;
};
DeviceAvailability probe_cuda_device();

}  // namespace d2k::runtime
