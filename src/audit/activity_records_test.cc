#include "audit/activity_records.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace d2k::audit {
namespace {

TEST(DemangleTest, ReadsCppNamesAndLeavesOthersAsTheyAre) {
  EXPECT_EQ(demangle("_Z10scale_rowsPKfPfi"), "scale_rows(float const*, float*, int)");
  EXPECT_EQ(demangle("_scale_add_kernel"), "_scale_add_kernel");  // Triton's names are plain
  EXPECT_EQ(demangle(nullptr), "");
}

TEST(SynchronizationKindTest, NamesEveryTypeAndUnknownOnes) {
  EXPECT_EQ(synchronization_kind_name(1), "event_synchronize");
  EXPECT_EQ(synchronization_kind_name(2), "stream_wait_event");
  EXPECT_EQ(synchronization_kind_name(3), "stream_synchronize");
  EXPECT_EQ(synchronization_kind_name(4), "context_synchronize");
  EXPECT_EQ(synchronization_kind_name(0), "unknown");
  EXPECT_EQ(synchronization_kind_name(0x7fffffff), "unknown");
}

TEST(MemcpyKindTest, NamesEveryKindAndUnknownOnes) {
  EXPECT_EQ(memcpy_kind_name(1), "HtoD");
  EXPECT_EQ(memcpy_kind_name(2), "DtoH");
  EXPECT_EQ(memcpy_kind_name(8), "DtoD");
  EXPECT_EQ(memcpy_kind_name(9), "HtoH");
  EXPECT_EQ(memcpy_kind_name(10), "PtoP");
  EXPECT_EQ(memcpy_kind_name(0), "unknown");
  EXPECT_EQ(memcpy_kind_name(200), "unknown");
}

#ifdef D2K_HAVE_CUPTI

// Records laid out as CUPTI writes them, built in memory, and a stand-in for
// cuptiActivityGetNextRecord that walks them in order.
class SyntheticBuffer {
 public:
  template <typename Record>
  void add(const Record& record) {
    const size_t at = bytes_.size();
    bytes_.resize(at + sizeof(Record));
    std::memcpy(bytes_.data() + at, &record, sizeof(Record));
    offsets_.push_back(at);
  }

  NextRecord walker() {
    return [this](uint8_t* buffer, size_t, CUpti_Activity** record) {
      if (next_ == offsets_.size()) return CUPTI_ERROR_MAX_LIMIT_REACHED;
      *record = reinterpret_cast<CUpti_Activity*>(buffer + offsets_[next_++]);
      return CUPTI_SUCCESS;
    };
  }
  uint8_t* data() { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;  // operator new aligns it for the 8-byte fields
  std::vector<size_t> offsets_;
  size_t next_ = 0;
};

CUpti_ActivityKernel10 kernel(const char* name, uint32_t stream, uint64_t start, uint64_t end) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = name;
  k.deviceId = 0;
  k.streamId = stream;
  k.gridX = 132;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.start = start;
  k.end = end;
  k.registersPerThread = 96;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 65536;
  return k;
}

CUpti_ActivityMemory4 memory(CUpti_ActivityMemoryOperationType operation, uint64_t bytes,
                             uint64_t timestamp,
                             CUpti_ActivityMemoryKind kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) {
  CUpti_ActivityMemory4 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = operation;
  m.memoryKind = kind;
  m.bytes = bytes;
  m.timestamp = timestamp;
  return m;
}

CUpti_ActivityMemcpy6 memcpy_record(CUpti_ActivityMemcpyKind kind, uint64_t bytes,
                                    uint32_t stream) {
  CUpti_ActivityMemcpy6 copy{};
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.copyKind = kind;
  copy.bytes = bytes;
  copy.deviceId = 0;
  copy.streamId = stream;
  return copy;
}

TEST(ActivityCollectorTest, ConvertsKernelsCopiesAndFills) {
  SyntheticBuffer buffer;
  buffer.add(kernel("_Z6gemm_kPKfS0_Pfiii", 7, 1000, 251000));
  buffer.add(memcpy_record(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 4096, 7));
  CUpti_ActivityMemset4 fill{};
  fill.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  fill.bytes = 1 << 20;
  fill.deviceId = 1;
  fill.streamId = 9;
  buffer.add(fill);

  ActivityCollector collector;
  collect_buffer(buffer.data(), buffer.size(), buffer.walker(), collector);
  const ActivityTrace trace = collector.finish(0, 7, std::nullopt);

  EXPECT_EQ(trace.audit.harness_device, 0u);
  EXPECT_EQ(trace.audit.harness_stream, 7u);
  ASSERT_EQ(trace.audit.kernels.size(), 1u);
  const record::AuditedKernel& k = trace.audit.kernels[0];
  EXPECT_EQ(k.name, "gemm_k(float const*, float const*, float*, int, int, int)");
  EXPECT_EQ(k.stream, 7u);
  EXPECT_EQ(k.grid, (std::array<int32_t, 3>{132, 2, 1}));
  EXPECT_EQ(k.block, (std::array<int32_t, 3>{256, 1, 1}));
  EXPECT_DOUBLE_EQ(k.duration_s, 250e-6);
  EXPECT_EQ(k.registers_per_thread, 96);
  EXPECT_EQ(k.static_shared_bytes, 1024);
  EXPECT_EQ(k.dynamic_shared_bytes, 65536);
  ASSERT_EQ(trace.audit.transfers.size(), 2u);
  EXPECT_EQ(trace.audit.transfers[0].operation, "memcpy");
  EXPECT_EQ(trace.audit.transfers[0].kind, "DtoH");
  EXPECT_EQ(trace.audit.transfers[0].bytes, 4096u);
  EXPECT_EQ(trace.audit.transfers[1].operation, "memset");
  EXPECT_EQ(trace.audit.transfers[1].kind, "");
  EXPECT_EQ(trace.audit.transfers[1].device, 1u);
  EXPECT_EQ(trace.audit.transfers[1].stream, 9u);
  EXPECT_EQ(trace.peak_allocated_bytes, 0);
}

CUpti_ActivitySynchronization2 synchronization(CUpti_ActivitySynchronizationType type,
                                               uint32_t stream, uint64_t start,
                                               uint32_t return_value = 0) {
  CUpti_ActivitySynchronization2 s{};
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = type;
  s.streamId = stream;
  s.start = start;
  s.end = start + 5;
  s.returnValue = return_value;
  return s;
}

// The fingerprint cache of docs/protocol.md: a 4-byte device-to-host copy and a stream
// synchronize inside the call, then the harness's own context synchronize after it returned.
TEST(ActivityCollectorTest, KeepsTheCallsOwnSynchronizationsAndDropsTheHarnesss) {
  SyntheticBuffer buffer;
  buffer.add(kernel("fingerprint_kernel", 7, 100, 120));
  buffer.add(memcpy_record(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 4, 7));
  buffer.add(synchronization(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 7, 130));
  buffer.add(synchronization(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE,
                             CUPTI_SYNCHRONIZATION_INVALID_VALUE, 140));
  // A stream query that found work pending returns CUDA_ERROR_NOT_READY (600): no wait.
  buffer.add(synchronization(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 7, 150, 600));
  buffer.add(synchronization(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE,
                             CUPTI_SYNCHRONIZATION_INVALID_VALUE, 200));
  ActivityCollector collector;
  collect_buffer(buffer.data(), buffer.size(), buffer.walker(), collector);

  const ActivityTrace trace = collector.finish(0, 7, uint64_t{190});
  ASSERT_EQ(trace.audit.synchronizations.size(), 2u);
  EXPECT_EQ(trace.audit.synchronizations[0].kind, "stream_synchronize");
  EXPECT_EQ(trace.audit.synchronizations[0].stream, 7u);
  EXPECT_EQ(trace.audit.synchronizations[1].kind, "event_synchronize");
  EXPECT_FALSE(trace.audit.synchronizations[1].stream.has_value());
  ASSERT_EQ(trace.audit.transfers.size(), 1u);
  EXPECT_EQ(trace.audit.transfers[0].kind, "DtoH");
  EXPECT_EQ(trace.audit.transfers[0].bytes, 4u);

  // Without the moment the call returned, the harness's wait cannot be told from the call's.
  EXPECT_TRUE(collector.finish(0, 7, std::nullopt).audit.synchronizations.empty());
}

TEST(ActivityCollectorTest, TakesThePeakOfDeviceAllocationsInTimeOrder) {
  SyntheticBuffer buffer;
  // Out of time order, as buffers of different streams arrive: +64 MiB at t=10, +1 MiB at t=20,
  // -64 MiB at t=30, +2 MiB at t=40. Host memory does not count.
  buffer.add(memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, 64 << 20, 30));
  buffer.add(memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 64 << 20, 10));
  buffer.add(memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 2 << 20, 40));
  buffer.add(memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 1 << 20, 20));
  buffer.add(memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 512 << 20, 25,
                    CUPTI_ACTIVITY_MEMORY_KIND_PINNED));
  ActivityCollector collector;
  collect_buffer(buffer.data(), buffer.size(), buffer.walker(), collector);
  EXPECT_EQ(collector.finish(0, 7, std::nullopt).peak_allocated_bytes, (64 << 20) + (1 << 20));
}

TEST(ActivityCollectorTest, AFreeOfOlderMemoryDoesNotCountAsHeld) {
  SyntheticBuffer buffer;
  buffer.add(memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, 8 << 20, 5));
  buffer.add(memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 4 << 20, 6));
  ActivityCollector collector;
  collect_buffer(buffer.data(), buffer.size(), buffer.walker(), collector);
  EXPECT_EQ(collector.finish(0, 7, std::nullopt).peak_allocated_bytes, 0);
}

TEST(ActivityCollectorTest, IgnoresKindsItDoesNotAudit) {
  SyntheticBuffer buffer;
  CUpti_ActivityAPI api{};
  api.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  buffer.add(api);
  buffer.add(kernel("triton_poi_fused_add_0", 7, 0, 10));
  ActivityCollector collector;
  collect_buffer(buffer.data(), buffer.size(), buffer.walker(), collector);
  const ActivityTrace trace = collector.finish(0, 7, std::nullopt);
  ASSERT_EQ(trace.audit.kernels.size(), 1u);
  EXPECT_EQ(trace.audit.kernels[0].name, "triton_poi_fused_add_0");
  EXPECT_TRUE(trace.audit.transfers.empty());
}

TEST(ActivityCollectorTest, AFailedWalkIsATracerErrorAndAnEmptyBufferIsNothing) {
  ActivityCollector collector;
  uint8_t byte = 0;
  const NextRecord broken = [](uint8_t*, size_t, CUpti_Activity**) {
    return CUPTI_ERROR_INVALID_KIND;
  };
  EXPECT_THROW(collect_buffer(&byte, 1, broken, collector), TracerError);
  EXPECT_NO_THROW(collect_buffer(nullptr, 0, broken, collector));
}

// Kernels, copies and fills from CUPTI feed the rules as they are: a side-stream kernel, found
// by its stream id, is a finding.
TEST(ActivityCollectorTest, StreamIdsReachTheAuditAsCuptiNumbersThem) {
  SyntheticBuffer buffer;
  buffer.add(kernel("mine", 7, 0, 10));
  buffer.add(kernel("elsewhere", 13, 0, 10));
  ActivityCollector collector;
  collect_buffer(buffer.data(), buffer.size(), buffer.walker(), collector);
  const ActivityTrace trace = collector.finish(0, 7, std::nullopt);
  EXPECT_EQ(trace.audit.kernels[1].stream, 13u);
  EXPECT_NE(trace.audit.kernels[1].stream, trace.audit.harness_stream);
}

#endif

}  // namespace
}  // namespace d2k::audit
