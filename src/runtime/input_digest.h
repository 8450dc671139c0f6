#pragma once
// A 64-bit digest of a tensor's bytes, computed where the bytes are: a sum (mod 2^64) over the
// buffer's 64-bit words of a SplitMix64 mix of each word keyed by its position, mixed once more
// with the length. Any change of a byte changes one term. The sum makes the device version a
// plain parallel reduction, so a digest of gigabytes costs a pass over them at memory speed
// instead of a copy to the host; both versions give the same value for the same bytes.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/cuda_context.h"

namespace d2k::runtime {

uint64_t host_digest(const void* data, size_t bytes);

// The device version, from the kernel compiled into this build (kernels/digest.cu). One per
// worker: it loads its module into the current context once.
class DeviceDigest {
 public:
  // Whether this build carries the kernel (nvcc was found when it was configured).
  static bool available();
  DeviceDigest();
  ~DeviceDigest();
  DeviceDigest(const DeviceDigest&) = delete;  // owns a module and an accumulator
  DeviceDigest& operator=(const DeviceDigest&) = delete;
  // Digest of `bytes` bytes at device address `data`; waits for `stream` to finish it.
  uint64_t digest(const void* data, size_t bytes, CUstream stream);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace d2k::runtime
