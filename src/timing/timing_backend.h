#pragma once

#include <functional>
#include <memory>
#include <string>

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
  virtual void synchronize() = 0;
  virtual bool supports_graphs() const = 0;
  // Records everything `body` launches into a graph without running it.
  virtual std::unique_ptr<Graph> capture(const std::function<void()>& body) = 0;
};

}  // namespace d2k::timing
