#include "runtime/buffer.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace d2k::runtime {
namespace {

// cuMemAlloc's alignment; host buffers match it so a candidate sees the same guarantee on both.
constexpr size_t kAlignment = 256;

}  // namespace

Buffer::Buffer(size_t bytes, bool on_device) : bytes_(bytes), on_device_(on_device) {
  if (bytes == 0) return;
  if (!on_device) {
    // aligned_alloc wants a multiple of the alignment.
    data_ = std::aligned_alloc(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    if (data_ == nullptr) throw std::bad_alloc();
    return;
  }
#ifdef D2K_HAVE_CUDA
  CUdeviceptr pointer = 0;
  check(CudaDriver::get().cuMemAlloc(&pointer, bytes),
        ("cuMemAlloc of " + std::to_string(bytes) + " bytes").c_str());
  data_ = reinterpret_cast<void*>(pointer);
#else
  throw CudaError("this d2k was built without the CUDA toolkit");
#endif
}

Buffer::~Buffer() {
  if (data_ == nullptr) return;
  if (!on_device_) {
    std::free(data_);
    return;
  }
#ifdef D2K_HAVE_CUDA
  CudaDriver::get().cuMemFree(reinterpret_cast<CUdeviceptr>(data_));
#endif
}

void Buffer::fill(uint8_t value, [[maybe_unused]] CUstream stream) {
  if (data_ == nullptr) return;
  if (!on_device_) {
    std::memset(data_, value, bytes_);
    return;
  }
#ifdef D2K_HAVE_CUDA
  check(CudaDriver::get().cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(data_), value, bytes_,
                                          stream),
        "cuMemsetD8Async");
#endif
}

}  // namespace d2k::runtime
