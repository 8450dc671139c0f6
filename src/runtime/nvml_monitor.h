#pragma once
// The GPU's clocks, temperature and throttling, read through NVML (libnvidia-ml), opened at run
// time like libcuda: a machine without it simply reports nothing.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace d2k::runtime {

struct NvmlReading {
  uint32_t sm_clock_mhz = 0;
  uint32_t temperature_c = 0;
  uint64_t clock_event_reasons = 0;   // nvmlClocksEventReason* bits
  uint64_t power_violation_ns = 0;    // cumulative time held back by the power policy
  uint64_t thermal_violation_ns = 0;  // cumulative time held back by the thermal policy
};

class NvmlMonitor {
 public:
  // The device with PCI bus id `pci_bus_id` (CudaContext::pci_bus_id); null, with the reason in
  // `unavailable`, when NVML or the device cannot be opened.
  static std::unique_ptr<NvmlMonitor> open(const std::string& pci_bus_id,
                                           std::string& unavailable);
  ~NvmlMonitor();
  NvmlMonitor(const NvmlMonitor&) = delete;  // holds one NVML initialization
  NvmlMonitor& operator=(const NvmlMonitor&) = delete;

  // Now; nullopt when a query fails (the device fell off the bus, a driver reset).
  std::optional<NvmlReading> read() const;

  struct Api;  // the library's entry points (nvml_monitor.cc)

 private:
  NvmlMonitor(const Api& api, void* device) : api_(api), device_(device) {}
  const Api& api_;
  void* device_;
};

}  // namespace d2k::runtime
