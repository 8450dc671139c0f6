#include "worker/device.h"

namespace d2k::worker {
namespace {

// Input sets of a CPU task live in host memory; a CPU task's inputs are small.
constexpr int64_t kHostInputSetBudget = int64_t{1} << 30;

}  // namespace

Device::Device(bool cuda) {
  if (!cuda) return;
  context_.emplace(0);
  stream_.emplace();
  std::string unavailable;
  monitor_ = runtime::NvmlMonitor::open(context_->pci_bus_id(), unavailable);
  if (runtime::DeviceDigest::available()) digest_ = std::make_unique<runtime::DeviceDigest>();
}

void Device::synchronize() const {
  if (context_) context_->synchronize();
}

int64_t Device::l2_bytes() const { return context_ ? context_->l2_bytes() : 0; }

int64_t Device::input_set_budget() const {
  return context_ ? context_->free_bytes() / 2 : kHostInputSetBudget;
}

std::optional<record::DeviceReading> Device::read() const {
  if (!monitor_) return std::nullopt;
  const auto reading = monitor_->read();
  if (!reading) return std::nullopt;
  return record::DeviceReading{static_cast<double>(reading->sm_clock_mhz),
                               static_cast<double>(reading->temperature_c),
                               reading->clock_event_reasons, reading->power_violation_ns,
                               reading->thermal_violation_ns};
}

std::optional<uint64_t> Device::digest(const void* data, size_t bytes) {
  if (!digest_) return std::nullopt;
  return digest_->digest(data, bytes, stream_->handle());
}

}  // namespace d2k::worker
