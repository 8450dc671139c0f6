#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <mutex>

namespace d2k::runtime {

#ifdef D2K_HAVE_CUDA
namespace {

#define D2K_STRINGIZE_EXPANDED(x) D2K_STRINGIZE(x)
#define D2K_STRINGIZE(x) #x

CudaDriver load_driver() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    throw CudaError(std::string("cannot load the CUDA driver (libcuda.so.1): ") +
                    (error ? error : "unknown error"));
  }
  CudaDriver driver;
#define D2K_CUDA_ENTRY(fn)                                                               \
  driver.fn = reinterpret_cast<driver_types::fn>(dlsym(handle, D2K_STRINGIZE_EXPANDED(fn))); \
  if (driver.fn == nullptr) throw CudaError("libcuda lacks " D2K_STRINGIZE_EXPANDED(fn));
#include "runtime/cuda_driver_entries.inc"
#undef D2K_CUDA_ENTRY
  return driver;
}

}  // namespace

const CudaDriver& CudaDriver::get() {
  static std::once_flag once;
  static CudaDriver driver;
  static std::string failure;
  std::call_once(once, [] {
    try {
      driver = load_driver();
      const CUresult init = driver.cuInit(0);
      if (init != CUDA_SUCCESS) {
        const char* name = nullptr;
        driver.cuGetErrorName(init, &name);
        failure = std::string("cuInit failed: ") + (name ? name : "unknown error");
      }
    } catch (const CudaError& error) {
      failure = error.what();
    }
  });
  if (!failure.empty()) throw CudaError(failure);
  return driver;
}

void check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return;
  const auto& driver = CudaDriver::get();
  const char* name = nullptr;
  const char* text = nullptr;
  driver.cuGetErrorName(result, &name);
  driver.cuGetErrorString(result, &text);
  throw CudaError(std::string(what) + " failed: " + (name ? name : "?") + " (" +
                  (text ? text : "no description") + ")");
}

DeviceAvailability probe_cuda_device() {
  try {
    const auto& driver = CudaDriver::get();
    int count = 0;
    check(driver.cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count == 0) return {false, "the CUDA driver reports no device"};
    return {true, ""};
  } catch (const CudaError& error) {
    return {false, error.what()};
  }
}

#else

DeviceAvailability probe_cuda_device() {
  return {false, "this d2k was built without the CUDA toolkit"};
}

#endif

}  // namespace d2k::runtime
