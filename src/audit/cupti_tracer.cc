#include "audit/cupti_tracer.h"

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "audit/activity_records.h"

#ifdef D2K_HAVE_CUPTI
#include <cupti_result.h>
#include <cupti_version.h>
#endif

namespace d2k::audit {

#ifdef D2K_HAVE_CUPTI
namespace {

namespace cupti_types {
#define D2K_CUPTI_ENTRY(fn) using fn = decltype(&::fn);
#include "audit/cupti_entries.inc"
#undef D2K_CUPTI_ENTRY
}  // namespace cupti_types

struct CuptiApi {
#define D2K_CUPTI_ENTRY(fn) cupti_types::fn fn = nullptr;
#include "audit/cupti_entries.inc"
#undef D2K_CUPTI_ENTRY
  std::string description;  // "CUPTI 130001 (/usr/local/cuda/lib64/libcupti.so.13)"
};

struct LoadedCupti {
  CuptiApi api;
  std::string failure;  // empty when loaded
};

// The library's file name for the CUDA major release the headers belong to: libcupti.so.13.
std::string versioned_name() { return fmt::format("libcupti.so.{}", CUDA_VERSION / 1000); }

// Files to try after a copy already in the process, most specific first.
std::vector<std::string> library_files() {
  std::vector<std::string> files;
  if (const char* explicit_path = std::getenv("D2K_CUPTI"); explicit_path && *explicit_path) {
    files.emplace_back(explicit_path);
  }
  std::vector<std::string> roots;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) roots.emplace_back(home);
  roots.emplace_back("/usr/local/cuda");
  for (const auto& root : roots) {
    for (const char* folder : {"lib64", "extras/CUPTI/lib64"}) {
      files.push_back(fmt::format("{}/{}/{}", root, folder, versioned_name()));
      files.push_back(fmt::format("{}/{}/libcupti.so", root, folder));
    }
  }
  files.push_back(versioned_name());  // the dynamic loader's search path
  files.emplace_back("libcupti.so");
  return files;
}

void* open_library(std::string& failure) {
  // PyTorch loads its own libcupti; a second copy in the process would compete with it for the
  // driver's callbacks, so a loaded copy is used as it is.
  for (const std::string& name : {versioned_name(), std::string("libcupti.so")}) {
    if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD)) return handle;
  }
  std::string last_error;
  for (const std::string& file : library_files()) {
    if (void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    const char* error = dlerror();
    if (error != nullptr) last_error = error;
  }
  failure = fmt::format("CUPTI (libcupti) not found in this process, $D2K_CUPTI, $CUDA_HOME, "
                        "/usr/local/cuda or the loader's path (last error: {})",
                        last_error);
  return nullptr;
}

LoadedCupti load_cupti() {
  LoadedCupti loaded;
  void* handle = open_library(loaded.failure);
  if (handle == nullptr) return loaded;
  CuptiApi& api = loaded.api;
#define D2K_CUPTI_ENTRY(fn)                                                  \
  api.fn = reinterpret_cast<cupti_types::fn>(dlsym(handle, #fn));           \
  if (api.fn == nullptr) {                                                   \
    loaded.failure = "the CUPTI library lacks " #fn;                         \
    return loaded;                                                           \
  }
#include "audit/cupti_entries.inc"
#undef D2K_CUPTI_ENTRY
  Dl_info info{};
  const std::string file = dladdr(reinterpret_cast<void*>(api.cuptiGetVersion), &info) != 0 &&
                                   info.dli_fname != nullptr
                               ? info.dli_fname
                               : "unknown file";
  uint32_t version = 0;
  if (api.cuptiGetVersion(&version) != CUPTI_SUCCESS) {
    loaded.failure = "cuptiGetVersion failed for " + file;
    return loaded;
  }
  // The records are read with this build's struct layouts. CUPTI only appends fields within a
  // major release, so a library of an older major release is refused.
  constexpr uint32_t kMajorOfHeaders = CUPTI_API_VERSION / 10000;
  if (version / 10000 < kMajorOfHeaders) {
    loaded.failure = fmt::format("{} has CUPTI API version {}, older than the headers d2k was "
                                 "built with ({})",
                                 file, version, CUPTI_API_VERSION);
    return loaded;
  }
  api.description = fmt::format("CUPTI {} ({})", version, file);
  return loaded;
}

const LoadedCupti& cupti() {
  static const LoadedCupti loaded = load_cupti();
  return loaded;
}

// What CuptiTracer records.
constexpr std::array<CUpti_ActivityKind, 5> kKinds{
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION};

constexpr size_t kBufferBytes = size_t{8} << 20;

// CUPTI hands buffers back through plain C callbacks, possibly on its own thread; they deliver
// into the collector of the one tracer recording now, or drop the records.
std::mutex g_mutex;
ActivityCollector* g_collector = nullptr;  // guarded by g_mutex
std::string g_error;                       // guarded by g_mutex

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;  // none: CUPTI counts the records as dropped
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_bytes) {
  {
    const std::lock_guard lock(g_mutex);
    if (g_collector != nullptr) {
      try {
        collect_buffer(buffer, valid_bytes, cupti().api.cuptiActivityGetNextRecord, *g_collector);
      } catch (const TracerError& error) {
        if (g_error.empty()) g_error = error.what();
      }
    }
  }
  std::free(buffer);
}

void check(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cupti().api.cuptiGetResultString(result, &text);
  throw TracerError(fmt::format("{} failed: {}", what, text != nullptr ? text : "unknown error"));
}

class CuptiTracer : public ActivityTracer {
 public:
  CuptiTracer(const CuptiApi& api, void* stream, uint32_t device)
      : api_(api), stream_(static_cast<CUstream>(stream)), device_(device) {}
  ~CuptiTracer() override {
    if (!recording_) return;
    for (const CUpti_ActivityKind kind : kKinds) api_.cuptiActivityDisable(kind);
    const std::lock_guard lock(g_mutex);
    g_collector = nullptr;
  }
  CuptiTracer(const CuptiTracer&) = delete;  // owns the process's one recording
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  void start() override {
    static std::once_flag registered;
    std::call_once(registered, [&] {
      check(api_.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
            "cuptiActivityRegisterCallbacks");
    });
    {
      const std::lock_guard lock(g_mutex);
      if (g_collector != nullptr) throw TracerError("another trace is already recording");
    }
    // Whatever an earlier trace in this process left in CUPTI's buffers is delivered now, to no
    // collector.
    static bool traced_before = false;
    if (traced_before) {
      check(api_.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    }
    traced_before = true;
    {
      const std::lock_guard lock(g_mutex);
      collector_ = ActivityCollector{};
      g_collector = &collector_;
      g_error.clear();
    }
    recording_ = true;
    call_returned_.reset();
    for (const CUpti_ActivityKind kind : kKinds) {
      check(api_.cuptiActivityEnable(kind), "cuptiActivityEnable");
    }
    // The harness stream in CUPTI's numbering, which is what the records carry.
    uint32_t stream_id = 0;
    check(api_.cuptiGetStreamIdEx(nullptr, stream_, 0, &stream_id), "cuptiGetStreamIdEx");
    harness_stream_id_ = stream_id;
  }

  void call_returned() override {
    uint64_t now = 0;
    check(api_.cuptiGetTimestamp(&now), "cuptiGetTimestamp");
    call_returned_ = now;
  }

  ActivityTrace stop() override {
    for (const CUpti_ActivityKind kind : kKinds) {
      check(api_.cuptiActivityDisable(kind), "cuptiActivityDisable");
    }
    check(api_.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    size_t dropped = 0;
    check(api_.cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped),
          "cuptiActivityGetNumDroppedRecords");
    std::string error;
    {
      const std::lock_guard lock(g_mutex);
      g_collector = nullptr;
      error = g_error;
    }
    recording_ = false;
    if (!error.empty()) throw TracerError(error);
    if (dropped > 0) {
      throw TracerError(fmt::format("CUPTI dropped {} activity records; the trace is incomplete",
                                    dropped));
    }
    ActivityTrace trace = collector_.finish(device_, harness_stream_id_, call_returned_);
    trace.audit.tracer = api_.description;
    return trace;
  }

 private:
  const CuptiApi& api_;
  CUstream stream_;
  uint32_t device_;
  uint64_t harness_stream_id_ = 0;
  std::optional<uint64_t> call_returned_;  // CUPTI's clock
  bool recording_ = false;
  ActivityCollector collector_;
};

}  // namespace

TracerOpening open_cupti_tracer(void* harness_stream, uint32_t harness_device) {
  const LoadedCupti& loaded = cupti();
  if (!loaded.failure.empty()) return {nullptr, loaded.failure};
  return {std::make_unique<CuptiTracer>(loaded.api, harness_stream, harness_device), ""};
}

#else

TracerOpening open_cupti_tracer(void*, uint32_t) {
#ifdef D2K_HAVE_CUDA
  return {nullptr, "this d2k was built without CUPTI's headers (cupti_activity.h)"};
#else
  return {nullptr, "this d2k was built without the CUDA toolkit, so it has no CUPTI tracer"};
#endif
}

#endif

}  // namespace d2k::audit
