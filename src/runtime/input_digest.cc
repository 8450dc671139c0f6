#include "runtime/input_digest.h"

#include <algorithm>
#include <cstring>

#ifdef D2K_HAVE_DIGEST_KERNEL
#include "runtime/digest_ptx.inc"  // kDigestPtx, generated from kernels/digest.cu
#endif

namespace d2k::runtime {
namespace {

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t keyed(uint64_t word, uint64_t index) {
  return mix64(word ^ (index * 0x9E3779B97F4A7C15ull + 0xD1B54A32D192ED03ull));
}

uint64_t finish(uint64_t sum, size_t bytes) { return mix64(sum ^ static_cast<uint64_t>(bytes)); }

}  // namespace

uint64_t host_digest(const void* data, size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t sum = 0;
  const size_t full = bytes / 8;
  for (size_t i = 0; i < full; ++i) {
    uint64_t word;
    std::memcpy(&word, p + i * 8, 8);  // little-endian, as on the device
    sum += keyed(word, i);
  }
  if (bytes % 8 != 0) {
    uint64_t word = 0;
    std::memcpy(&word, p + full * 8, bytes % 8);
    sum += keyed(word, full);
  }
  return finish(sum, bytes);
}

#if defined(D2K_HAVE_CUDA) && defined(D2K_HAVE_DIGEST_KERNEL)

struct DeviceDigest::State {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  CUdeviceptr sum = 0;
};

bool DeviceDigest::available() { return true; }

DeviceDigest::DeviceDigest() : state_(std::make_unique<State>()) {
  const auto& driver = CudaDriver::get();
  check(driver.cuModuleLoadData(&state_->module, kDigestPtx), "cuModuleLoadData(digest)");
  check(driver.cuModuleGetFunction(&state_->function, state_->module, "d2k_digest"),
        "cuModuleGetFunction(d2k_digest)");
  check(driver.cuMemAlloc(&state_->sum, sizeof(uint64_t)), "cuMemAlloc(digest)");
}

DeviceDigest::~DeviceDigest() {
  const auto& driver = CudaDriver::get();
  if (state_->sum != 0) driver.cuMemFree(state_->sum);
  if (state_->module != nullptr) driver.cuModuleUnload(state_->module);
}

uint64_t DeviceDigest::digest(const void* data, size_t bytes, CUstream stream) {
  const auto& driver = CudaDriver::get();
  check(driver.cuMemsetD8Async(state_->sum, 0, sizeof(uint64_t), stream), "cuMemsetD8Async");
  if (bytes > 0) {
    const uint64_t words = (bytes + 7) / 8;
    constexpr unsigned kThreads = 256;
    // Enough blocks to fill the device many times over, few enough that the atomics are cheap.
    const auto blocks = static_cast<unsigned>(std::min<uint64_t>(4096, (words + kThreads - 1) / kThreads));
    CUdeviceptr address = reinterpret_cast<CUdeviceptr>(data);
    unsigned long long length = bytes;
    void* arguments[] = {&address, &length, &state_->sum};
    check(driver.cuLaunchKernel(state_->function, blocks, 1, 1, kThreads, 1, 1, 0, stream,
                                arguments, nullptr),
          "cuLaunchKernel(d2k_digest)");
  }
  check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize");
  uint64_t sum = 0;
  check(driver.cuMemcpyDtoH(&sum, state_->sum, sizeof sum), "cuMemcpyDtoH(digest)");
  return finish(sum, bytes);
}

#else

struct DeviceDigest::State {};
bool DeviceDigest::available() { return false; }
DeviceDigest::DeviceDigest() {
  throw CudaError("this d2k was built without the device digest kernel (nvcc was not found)");
}
DeviceDigest::~DeviceDigest() = default;
uint64_t DeviceDigest::digest(const void*, size_t, CUstream) {
  throw CudaError("this d2k was built without the device digest kernel");
}

#endif

}  // namespace d2k::runtime
