#pragma once

#include <chrono>
#include <map>
#include <string>
#include <utility>

namespace d2k::worker {

// Seconds a worker spends per phase of a workload ("inputs", "calls", "digests", "outputs",
// "draws", "audit", "timing"), for the record's breakdown of where an evaluation's time goes.
class PhaseClock {
 public:
  using Clock = std::chrono::steady_clock;

  // Adds the time from construction to destruction to one phase.
  class Span {
   public:
    Span(PhaseClock& clock, const char* phase) : clock_(clock), phase_(phase), start_(Clock::now()) {}
    ~Span() { clock_.add(phase_, std::chrono::duration<double>(Clock::now() - start_).count()); }
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;

   private:
    PhaseClock& clock_;
    const char* phase_;
    Clock::time_point start_;
  };

  Span span(const char* phase) { return Span(*this, phase); }
  void add(const std::string& phase, double seconds) { phases_[phase] += seconds; }
  // The totals so far, and a fresh start for the next workload.
  std::map<std::string, double> take() { return std::exchange(phases_, {}); }

 private:
  std::map<std::string, double> phases_;
};

}  // namespace d2k::worker
