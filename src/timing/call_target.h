#pragma once

namespace d2k::timing {

// The work of one timed call as a measurement method sees it: one `run(...)` of a candidate.
// `call` launches the work and returns without synchronizing the device.
class CallTarget {
 public:
  virtual ~CallTarget() = default;
  virtual void call() = 0;
  // Tasks with mutable inputs (state) need them reset before every call. Methods never count
  // this in the reported latency.
  virtual bool has_state() const { return false; }
  virtual void restore_state() {}
};

}  // namespace d2k::timing
