#pragma once

#include <stdexcept>

namespace d2k::timing {

// A sample stayed shorter than the protocol's minimum after every allowed resize: the evaluator
// cannot publish the latency (harness_error "sample_too_short").
class SampleTooShort : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The host waited for the device far longer than the timed interval lasted: the call left work
// the interval does not bracket (another stream, another thread), so any latency would be fake
// (invalid "untimed_work").
class UntimedWork : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace d2k::timing
