#pragma once

#include <cstdint>

namespace d2k::timing {

// The work of one timed call as a measurement method sees it: one `run(...)` of a candidate on one
// of `input_sets()` independent argument lists. Methods rotate calls over the sets (InputRotation)
// so that no input is left in a cache by the call before; with one set, every call reads the same
// inputs.
class CallTarget {
 public:
  virtual ~CallTarget() = default;
  virtual int64_t input_sets() const { return 1; }
  // Launches the work on input set `set` and returns without synchronizing the device.
  virtual void call(int64_t set) = 0;
  // Tasks with mutable inputs (state) need them reset before every call. Methods never count
  // this in the reported latency.
  virtual bool has_state() const { return false; }
  virtual void restore_state(int64_t /*set*/) {}
  // Overwrites the last call's outputs (queued on the stream), so that what is read afterwards
  // is only what a later call wrote.
  virtual void poison_outputs() {}
};

// The order calls visit the input sets: 1, 2, ..., K-1, 0, then again. Methods take calls in
// whole rounds, so every batch and every captured graph ends with a call on set 0, whose outputs
// the evaluator then checks as the last timed call's.
class InputRotation {
 public:
  explicit InputRotation(int64_t sets) : sets_(sets < 1 ? 1 : sets) {}
  int64_t sets() const { return sets_; }
  int64_t set_of(int64_t call) const { return (call + 1) % sets_; }
  // The smallest multiple of sets() that is at least `calls` (and at least one round).
  int64_t whole_rounds(int64_t calls) const {
    const int64_t rounds = calls <= sets_ ? 1 : (calls + sets_ - 1) / sets_;
    return rounds * sets_;
  }

 private:
  int64_t sets_;
};

}  // namespace d2k::timing
