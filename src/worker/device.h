#pragma once
// The device a worker runs on: the CUDA primary context, the harness stream, the NVML monitor
// and the digest kernel; or nothing, for CPU tasks.

#include <memory>
#include <optional>
#include <string>

#include "record/latency.h"
#include "runtime/cuda_context.h"
#include "runtime/input_digest.h"
#include "runtime/nvml_monitor.h"

namespace d2k::worker {

class Device {
 public:
  explicit Device(bool cuda);

  bool cuda() const { return context_.has_value(); }
  const runtime::CudaContext& context() const { return *context_; }
  const runtime::CudaStream& stream() const { return *stream_; }
  CUstream harness_stream() const { return stream_ ? stream_->handle() : nullptr; }
  void synchronize() const;
  int64_t l2_bytes() const;
  // Bytes the timed calls' extra input sets may take: half of what is free now on a GPU.
  int64_t input_set_budget() const;
  // The GPU's clocks, temperature and throttling now; nullopt without NVML.
  std::optional<record::DeviceReading> read() const;
  // Digest of device bytes with the digest kernel; nullopt when this build has none.
  std::optional<uint64_t> digest(const void* data, size_t bytes);

 private:
  std::optional<runtime::CudaContext> context_;
  std::optional<runtime::CudaStream> stream_;
  std::unique_ptr<runtime::NvmlMonitor> monitor_;
  std::unique_ptr<runtime::DeviceDigest> digest_;
};

}  // namespace d2k::worker
