#include "runtime/cuda_context.h"

#include <cstring>

namespace d2k::runtime {

#ifdef D2K_HAVE_CUDA

CudaContext::CudaContext(int ordinal) {
  const auto& driver = CudaDriver::get();
  check(driver.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  check(driver.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  check(driver.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

CudaContext::~CudaContext() { CudaDriver::get().cuDevicePrimaryCtxRelease(device_); }

std::string CudaContext::device_name() const {
  char name[256] = {};
  check(CudaDriver::get().cuDeviceGetName(name, sizeof name - 1, device_), "cuDeviceGetName");
  return name;
}

std::string CudaContext::driver_version() const {
  int version = 0;
  check(CudaDriver::get().cuDriverGetVersion(&version), "cuDriverGetVersion");
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

void CudaContext::synchronize() const {
  check(CudaDriver::get().cuCtxSynchronize(), "cuCtxSynchronize");
}

int64_t CudaContext::l2_bytes() const {
  int bytes = 0;
  check(CudaDriver::get().cuDeviceGetAttribute(&bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device_),
        "cuDeviceGetAttribute(L2_CACHE_SIZE)");
  return bytes;
}

std::string CudaContext::pci_bus_id() const {
  char id[64] = {};
  check(CudaDriver::get().cuDeviceGetPCIBusId(id, sizeof id - 1, device_), "cuDeviceGetPCIBusId");
  return id;
}

int64_t CudaContext::free_bytes() const {
  size_t free = 0;
  size_t total = 0;
  check(CudaDriver::get().cuMemGetInfo(&free, &total), "cuMemGetInfo");
  return static_cast<int64_t>(free);
}

CudaStream::CudaStream() {
  check(CudaDriver::get().cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
}

CudaStream::~CudaStream() { CudaDriver::get().cuStreamDestroy(stream_); }

void CudaStream::synchronize() const {
  check(CudaDriver::get().cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

CudaEvent::CudaEvent() {
  check(CudaDriver::get().cuEventCreate(&event_, CU_EVENT_DEFAULT), "cuEventCreate");
}

CudaEvent::~CudaEvent() { CudaDriver::get().cuEventDestroy(event_); }

void CudaEvent::record(CUstream stream) {
  check(CudaDriver::get().cuEventRecord(event_, stream), "cuEventRecord");
}

double CudaEvent::seconds_since(const CudaEvent& start) const {
  float milliseconds = 0.0f;
  check(CudaDriver::get().cuEventElapsedTime(&milliseconds, start.event_, event_),
        "cuEventElapsedTime");
  return static_cast<double>(milliseconds) * 1e-3;
}

#else

namespace {
[[noreturn]] void no_cuda() { throw CudaError("this d2k was built without the CUDA toolkit"); }
}  // namespace

CudaContext::CudaContext(int) { no_cuda(); }
CudaContext::~CudaContext() = default;
std::string CudaContext::device_name() const { no_cuda(); }
std::string CudaContext::driver_version() const { no_cuda(); }
void CudaContext::synchronize() const { no_cuda(); }
int64_t CudaContext::l2_bytes() const { no_cuda(); }
std::string CudaContext::pci_bus_id() const { no_cuda(); }
int64_t CudaContext::free_bytes() const { no_cuda(); }
CudaStream::CudaStream() { no_cuda(); }
CudaStream::~CudaStream() = default;
void CudaStream::synchronize() const { no_cuda(); }
CudaEvent::CudaEvent() { no_cuda(); }
CudaEvent::~CudaEvent() = default;
void CudaEvent::record(CUstream) { no_cuda(); }
double CudaEvent::seconds_since(const CudaEvent&) const { no_cuda(); }

#endif

void copy_to_host(void* host_destination, const void* source, size_t bytes, bool on_device) {
  if (!on_device) {
    std::memcpy(host_destination, source, bytes);
    return;
  }
#ifdef D2K_HAVE_CUDA
  check(CudaDriver::get().cuMemcpyDtoH(host_destination, reinterpret_cast<CUdeviceptr>(source),
                                       bytes),
        "cuMemcpyDtoH");
#else
  throw std::logic_error("device memory in a build without CUDA");
#endif
}

void copy_to_host_pinned(void* host_destination, const void* source, size_t bytes,
                         bool on_device) {
#ifdef D2K_HAVE_CUDA
  if (on_device && bytes > 0) {
    const auto& driver = CudaDriver::get();
    if (driver.cuMemHostRegister(host_destination, bytes, 0) == CUDA_SUCCESS) {
      const CUresult copied = driver.cuMemcpyDtoH(host_destination,
                                                  reinterpret_cast<CUdeviceptr>(source), bytes);
      driver.cuMemHostUnregister(host_destination);
      check(copied, "cuMemcpyDtoH");
      return;
    }
  }
#endif
  copy_to_host(host_destination, source, bytes, on_device);
}

void fill_bytes(void* data, size_t bytes, uint8_t value, bool on_device,
                [[maybe_unused]] CUstream stream) {
  if (!on_device) {
    std::memset(data, value, bytes);
    return;
  }
#ifdef D2K_HAVE_CUDA
  check(CudaDriver::get().cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(data), value, bytes, stream),
        "cuMemsetD8Async");
#else
  throw std::logic_error("device memory in a build without CUDA");
#endif
}

void copy_same_residency(void* destination, const void* source, size_t bytes, bool on_device,
                         [[maybe_unused]] CUstream stream) {
  if (!on_device) {
    std::memmove(destination, source, bytes);
    return;
  }
#ifdef D2K_HAVE_CUDA
  check(CudaDriver::get().cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(destination),
                                            reinterpret_cast<CUdeviceptr>(source), bytes, stream),
        "cuMemcpyDtoDAsync");
#else
  throw std::logic_error("device memory in a build without CUDA");
#endif
}

}  // namespace d2k::runtime
