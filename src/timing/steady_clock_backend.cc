#include "timing/steady_clock_backend.h"

#include <chrono>
#include <stdexcept>

namespace d2k::timing {
namespace {

class SteadyClockInterval : public TimingBackend::Interval {
 public:
  void start() override { start_ = std::chrono::steady_clock::now(); }
  void stop() override { stop_ = std::chrono::steady_clock::now(); }
  double seconds() const override { return std::chrono::duration<double>(stop_ - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point stop_;
};

}  // namespace

std::string SteadyClockBackend::name() const { return "steady_clock"; }

std::unique_ptr<TimingBackend::Interval> SteadyClockBackend::new_interval() {
  return std::make_unique<SteadyClockInterval>();
}

void SteadyClockBackend::synchronize() {}

bool SteadyClockBackend::supports_graphs() const { return false; }

std::unique_ptr<TimingBackend::Graph> SteadyClockBackend::capture(const std::function<void()>&) {
  throw std::logic_error("the steady_clock timing backend cannot capture graphs");
}

double SteadyClockBackend::host_now_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace d2k::timing
