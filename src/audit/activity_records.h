#pragma once
// Turning CUPTI activity records into the audit record (record::KernelAudit). Kept apart from the
// library loading so that tests build records in memory and check the conversion without a GPU.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "audit/activity_tracer.h"

#if defined(D2K_HAVE_CUDA) && __has_include(<cupti_activity.h>)
#include <cupti_activity.h>
#define D2K_HAVE_CUPTI 1
#endif

namespace d2k::audit {

// The readable form of a C++ symbol; names that are not mangled (Triton's kernels) come back
// unchanged.
std::string demangle(const char* name);

#ifdef D2K_HAVE_CUPTI

// Collects the records of one trace. The kinds read are the ones CuptiTracer enables, with the
// record layouts of the CUPTI headers d2k is built with: CONCURRENT_KERNEL (CUpti_ActivityKernel10),
// MEMCPY (CUpti_ActivityMemcpy6), MEMSET (CUpti_ActivityMemset4), MEMORY2 (CUpti_ActivityMemory4)
// and SYNCHRONIZATION (CUpti_ActivitySynchronization2). Every other kind is ignored.
class ActivityCollector {
 public:
  void add(const CUpti_Activity& record);
  // The trace, with the harness's device and stream id for the rules to compare against.
  // `call_returned` is the CUPTI timestamp at which the traced call returned to the harness:
  // synchronizations that began before it are the call's; later ones are the harness's own wait
  // for the call's work. Without it no synchronization is kept, since none can be told apart.
  ActivityTrace finish(uint32_t harness_device, uint64_t harness_stream,
                       std::optional<uint64_t> call_returned) const;

 private:
  struct Synchronization {
    uint64_t start = 0;
    record::AuditedSync sync;
  };

  std::vector<record::AuditedKernel> kernels_;
  std::vector<record::AuditedTransfer> transfers_;
  std::vector<Synchronization> synchronizations_;
  // Device allocations (+bytes) and frees (-bytes) by timestamp.
  std::vector<std::pair<uint64_t, int64_t>> memory_events_;
};

// cuptiActivityGetNextRecord's signature: walks a completed buffer record by record.
using NextRecord = std::function<CUptiResult(uint8_t* buffer, size_t valid_bytes,
                                             CUpti_Activity** record)>;

// Adds every record of a completed buffer to `collector`. Throws TracerError when the walk fails
// other than by reaching the end.
void collect_buffer(uint8_t* buffer, size_t valid_bytes, const NextRecord& next,
                    ActivityCollector& collector);

#endif

// CUPTI's memcpy kinds as the record names them: "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", the
// array kinds ("HtoA", ...), or "unknown".
std::string memcpy_kind_name(uint8_t kind);

// CUPTI's synchronization types as the record names them: "event_synchronize",
// "stream_wait_event", "stream_synchronize", "context_synchronize", or "unknown".
std::string synchronization_kind_name(uint32_t type);

}  // namespace d2k::audit
