#include "audit/activity_records.h"

#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

namespace d2k::audit {

std::string demangle(const char* name) {
  if (name == nullptr) return "";
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> readable(
      abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 && readable ? std::string(readable.get()) : std::string(name);
}

std::string memcpy_kind_name(uint8_t kind) {
  // CUpti_ActivityMemcpyKind's values, 1 to 10, in order.
  static constexpr std::array<const char*, 11> kNames{"unknown", "HtoD", "DtoH", "HtoA", "AtoH",
                                                      "AtoA",    "AtoD", "DtoA", "DtoD", "HtoH",
                                                      "PtoP"};
  return kind < kNames.size() ? kNames[kind] : "unknown";
}

std::string synchronization_kind_name(uint32_t type) {
  // CUpti_ActivitySynchronizationType's values, 1 to 4, in order.
  static constexpr std::array<const char*, 5> kNames{"unknown", "event_synchronize",
                                                     "stream_wait_event", "stream_synchronize",
                                                     "context_synchronize"};
  return type < kNames.size() ? kNames[type] : "unknown";
}

#ifdef D2K_HAVE_CUPTI

void ActivityCollector::add(const CUpti_Activity& record) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto& k = reinterpret_cast<const CUpti_ActivityKernel10&>(record);
      record::AuditedKernel kernel;
      kernel.name = demangle(k.name);
      kernel.device = k.deviceId;
      kernel.stream = k.streamId;
      kernel.grid = {k.gridX, k.gridY, k.gridZ};
      kernel.block = {k.blockX, k.blockY, k.blockZ};
      kernel.duration_s = k.end > k.start ? static_cast<double>(k.end - k.start) * 1e-9 : 0.0;
      kernel.registers_per_thread = k.registersPerThread;
      kernel.static_shared_bytes = k.staticSharedMemory;
      kernel.dynamic_shared_bytes = k.dynamicSharedMemory;
      kernels_.push_back(std::move(kernel));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto& m = reinterpret_cast<const CUpti_ActivityMemcpy6&>(record);
      transfers_.push_back({"memcpy", memcpy_kind_name(m.copyKind), m.bytes, m.deviceId, m.streamId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto& m = reinterpret_cast<const CUpti_ActivityMemset4&>(record);
      transfers_.push_back({"memset", "", m.bytes, m.deviceId, m.streamId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
      const auto& m = reinterpret_cast<const CUpti_ActivityMemory4&>(record);
      if (m.memoryKind != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) break;
      const auto bytes = static_cast<int64_t>(m.bytes);
      if (m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION) {
        memory_events_.emplace_back(m.timestamp, bytes);
      } else if (m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) {
        memory_events_.emplace_back(m.timestamp, -bytes);
      }
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto& s = reinterpret_cast<const CUpti_ActivitySynchronization2&>(record);
      // A query that found the work unfinished returns an error and did not wait.
      if (s.returnValue != 0) break;
      Synchronization entry{s.start, {synchronization_kind_name(s.type), std::nullopt}};
      if (s.streamId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) entry.sync.stream = s.streamId;
      synchronizations_.push_back(std::move(entry));
      break;
    }
    default: break;
  }
}

ActivityTrace ActivityCollector::finish(uint32_t harness_device, uint64_t harness_stream,
                                        std::optional<uint64_t> call_returned) const {
  ActivityTrace trace;
  trace.audit.harness_device = harness_device;
  trace.audit.harness_stream = harness_stream;
  trace.audit.kernels = kernels_;
  trace.audit.transfers = transfers_;
  if (call_returned) {
    for (const Synchronization& entry : synchronizations_) {
      if (entry.start < *call_returned) trace.audit.synchronizations.push_back(entry.sync);
    }
  }
  // Buffers arrive per stream, not in time order; the peak needs the events in time order. A
  // free of memory allocated before the trace lowers the running sum below zero, which is right:
  // the call gave memory back.
  auto events = memory_events_;
  std::stable_sort(events.begin(), events.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  int64_t held = 0;
  for (const auto& [timestamp, bytes] : events) {
    held += bytes;
    trace.peak_allocated_bytes = std::max(trace.peak_allocated_bytes, held);
  }
  return trace;
}

void collect_buffer(uint8_t* buffer, size_t valid_bytes, const NextRecord& next,
                    ActivityCollector& collector) {
  if (buffer == nullptr || valid_bytes == 0) return;
  CUpti_Activity* record = nullptr;
  while (true) {
    const CUptiResult result = next(buffer, valid_bytes, &record);
    if (result == CUPTI_ERROR_MAX_LIMIT_REACHED) return;  // the end of the buffer
    if (result != CUPTI_SUCCESS) {
      throw TracerError(fmt::format("cannot read an activity record (CUPTI error {})",
                                    static_cast<int>(result)));
    }
    collector.add(*record);
  }
}

#endif

}  // namespace d2k::audit
