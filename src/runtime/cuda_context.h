#pragma once

#include <cstdint>
#include <string>

#include "runtime/cuda_driver.h"

#ifndef D2K_HAVE_CUDA
// Opaque handle types so the classes below exist in builds without the toolkit, where
// constructing them throws CudaError.
using CUdevice = int;
using CUcontext = struct CUctx_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
#endif

namespace d2k::runtime {

// The device's primary context, retained and made current on this thread. PyTorch's runtime
// uses the same primary context, so streams and events made here are valid for its kernels.
class CudaContext {
 public:
  explicit CudaContext(int ordinal = 0);
  ~CudaContext();
  CudaContext(const CudaContext&) = delete;  // owns one retain of the primary context
  CudaContext& operator=(const CudaContext&) = delete;

  std::string device_name() const;
  std::string driver_version() const;  // "13.0"
  void synchronize() const;            // every stream of the context, side streams included
  int64_t l2_bytes() const;            // the device's L2 cache size
  // "0000:19:00.0", the form NVML looks devices up by (nvml_monitor.h).
  std::string pci_bus_id() const;
  int64_t free_bytes() const;          // device memory free now

 private:
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

// A non-blocking stream owned by the harness; candidates are given it as the current stream.
class CudaStream {
 public:
  CudaStream();
  ~CudaStream();
  CudaStream(const CudaStream&) = delete;  // owns the stream handle
  CudaStream& operator=(const CudaStream&) = delete;

  CUstream handle() const { return stream_; }
  void synchronize() const;

 private:
  CUstream stream_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent();
  ~CudaEvent();
  CudaEvent(const CudaEvent&) = delete;  // owns the event handle
  CudaEvent& operator=(const CudaEvent&) = delete;

  void record(CUstream stream);
  // Seconds from `start` to this event; both must have completed.
  double seconds_since(const CudaEvent& start) const;

 private:
  CUevent event_ = nullptr;
};

// Copies `bytes` to host memory from a pointer that lives on the device (`on_device`) or host.
void copy_to_host(void* host_destination, const void* source, size_t bytes, bool on_device);
// The same, into host memory the caller owns for the copy's duration (a file's mapping): the
// pages are pinned for the copy, so it runs at the link's speed rather than through the
// driver's staging buffers; where pinning fails, it copies the ordinary way.
void copy_to_host_pinned(void* host_destination, const void* source, size_t bytes, bool on_device);
// Sets `bytes` bytes at `data` (device or host memory) to `value`; on the device, queued on
// `stream`.
void fill_bytes(void* data, size_t bytes, uint8_t value, bool on_device, CUstream stream);
// Copies between two buffers of the same residency (device-to-device or host-to-host). Device
// copies are queued on `stream`, so they are ordered with the calls on it and are recorded when
// that stream is being captured into a graph.
void copy_same_residency(void* destination, const void* source, size_t bytes, bool on_device,
                         CUstream stream);

}  // namespace d2k::runtime
