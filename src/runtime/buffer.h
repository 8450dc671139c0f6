#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/cuda_context.h"

namespace d2k::runtime {

// Memory the harness owns on behalf of a native candidate (its outputs and its workspace): device
// memory from cuMemAlloc in the current context, or 256-byte aligned host memory. Zero bytes
// allocate nothing and give a null pointer.
class Buffer {
 public:
  Buffer(size_t bytes, bool on_device);
  ~Buffer();
  Buffer(const Buffer&) = delete;  // owns the allocation
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  bool on_device() const { return on_device_; }
  // Sets every byte to `value`; on the device, queued on `stream`.
  void fill(uint8_t value, CUstream stream);

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  bool on_device_ = false;
};

}  // namespace d2k::runtime
