#include "runtime/nvml_monitor.h"

#include <dlfcn.h>

namespace d2k::runtime {
namespace {

// NVML's C interface as its header declares it (nvml.h is not part of every toolkit install);
// these entry points and types have been stable since NVML's first releases.
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kSuccess = 0;
constexpr int kClockSm = 1;           // NVML_CLOCK_SM
constexpr int kTemperatureGpu = 0;    // NVML_TEMPERATURE_GPU
constexpr int kPolicyPower = 0;       // NVML_PERF_POLICY_POWER
constexpr int kPolicyThermal = 1;     // NVML_PERF_POLICY_THERMAL

struct ViolationTime {
  unsigned long long reference_time;
  unsigned long long violation_time;  // nanoseconds
};

}  // namespace

struct NvmlMonitor::Api {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*handle_by_pci_bus_id)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock_info)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*clock_event_reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*violation_status)(nvmlDevice_t, int, ViolationTime*) = nullptr;
  std::string failure;
};

namespace {

template <typename Fn>
bool bind(void* library, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

const NvmlMonitor::Api& api() {
  static const NvmlMonitor::Api loaded = [] {
    NvmlMonitor::Api api;
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      api.failure = "libnvidia-ml.so.1 not found";
      return api;
    }
    const bool bound =
        bind(library, "nvmlInit_v2", api.init) && bind(library, "nvmlShutdown", api.shutdown) &&
        bind(library, "nvmlDeviceGetHandleByPciBusId_v2", api.handle_by_pci_bus_id) &&
        bind(library, "nvmlDeviceGetClockInfo", api.clock_info) &&
        bind(library, "nvmlDeviceGetTemperature", api.temperature) &&
        bind(library, "nvmlDeviceGetViolationStatus", api.violation_status) &&
        // The older name of the same query is kept by every driver that has the newer one.
        bind(library, "nvmlDeviceGetCurrentClocksThrottleReasons", api.clock_event_reasons);
    if (!bound) api.failure = "libnvidia-ml.so.1 lacks an entry point d2k needs";
    return api;
  }();
  return loaded;
}

}  // namespace

std::unique_ptr<NvmlMonitor> NvmlMonitor::open(const std::string& pci_bus_id,
                                               std::string& unavailable) {
  const Api& nvml = api();
  if (!nvml.failure.empty()) {
    unavailable = nvml.failure;
    return nullptr;
  }
  if (nvml.init() != kSuccess) {
    unavailable = "nvmlInit failed";
    return nullptr;
  }
  nvmlDevice_t device = nullptr;
  if (nvml.handle_by_pci_bus_id(pci_bus_id.c_str(), &device) != kSuccess) {
    nvml.shutdown();
    unavailable = "NVML has no device at PCI bus id " + pci_bus_id;
    return nullptr;
  }
  return std::unique_ptr<NvmlMonitor>(new NvmlMonitor(nvml, device));
}

NvmlMonitor::~NvmlMonitor() { api_.shutdown(); }

std::optional<NvmlReading> NvmlMonitor::read() const {
  NvmlReading reading;
  unsigned clock = 0;
  unsigned temperature = 0;
  unsigned long long reasons = 0;
  ViolationTime power{};
  ViolationTime thermal{};
  if (api_.clock_info(device_, kClockSm, &clock) != kSuccess ||
      api_.temperature(device_, kTemperatureGpu, &temperature) != kSuccess ||
      api_.clock_event_reasons(device_, &reasons) != kSuccess) {
    return std::nullopt;
  }
  // Violation counters are missing on some boards; the clock-event reasons still speak.
  if (api_.violation_status(device_, kPolicyPower, &power) != kSuccess) power = {};
  if (api_.violation_status(device_, kPolicyThermal, &thermal) != kSuccess) thermal = {};
  reading.sm_clock_mhz = clock;
  reading.temperature_c = temperature;
  reading.clock_event_reasons = reasons;
  reading.power_violation_ns = power.violation_time;
  reading.thermal_violation_ns = thermal.violation_time;
  return reading;
}

}  // namespace d2k::runtime
