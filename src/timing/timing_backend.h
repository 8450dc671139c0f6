#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "record/latency.h"

namespace d2k::timing {

// The clock and device control a measurement method needs. Implemented with CUDA events on the
// harness stream, with the host steady clock for CPU tasks, and by fakes in tests.
class TimingBackend {
 public:
  // One measured interval. On CUDA, start/stop record events on the harness stream.
  class Interval {
   public:
    virtual ~Interval() = default;
    virtual void start() = 0;
    virtual void stop() = 0;
    // Valid after the backend synchronized past stop().
    virtual double seconds() const = 0;
  };

  // A recorded sequence of calls that can be launched again as one unit (a CUDA graph).
  class Graph {
   public:
    virtual ~Graph() = default;
    virtual void launch() = 0;
  };

  virtual ~TimingBackend() = default;
  virtual std::string name() const = 0;
  virtual std::unique_ptr<Interval> new_interval() = 0;
  // Waits until every piece of work the process queued on the device has finished, whichever
  // stream it went to.
  virtual void synchronize() = 0;
  virtual bool supports_graphs() const = 0;
  // Records everything `body` launches into a graph without running it.
  virtual std::unique_ptr<Graph> capture(const std::function<void()>& body) = 0;
  // The host's monotonic clock, in seconds: how long the host waited for the device.
  virtual double host_now_s() const = 0;
  // The device's clocks, temperature and throttling now; nullopt where nothing reports them.
  virtual std::optional<record::DeviceReading> read_device() { return std::nullopt; }
};

}  // namespace d2k::timing
