#pragma once
// What `d2k doctor` measures on a device, behind an interface so tests can stand in a fake.

#include <cstdint>
#include <string>

#include "record/device_ceilings.h"

namespace d2k::doctor {

// Every rate is the best any of the probe's ways reached (library routines and d2k's own tuned
// kernels), with the way that reached it as its source: a bound built on it must hold for the
// fastest kernels, which reach the hardware's limits the same way.
class CeilingProbe {
 public:
  virtual ~CeilingProbe() = default;

  // Dense square matrix products, in flop/s, for a math dtype of task::kMeasuredMathDtypes.
  virtual record::Ceiling matmul(const std::string& math_dtype) = 0;
  // Streaming over a buffer far larger than the L2: bytes read per second, bytes written per
  // second, and bytes read plus written per second by a copy.
  virtual record::Ceiling read() = 0;
  virtual record::Ceiling write() = 0;
  virtual record::Ceiling copy() = 0;
  // The side of the square matrices and the size of the streamed buffers, kept with the ceilings.
  virtual int64_t matmul_size() const = 0;
  virtual int64_t stream_bytes() const = 0;
};

}  // namespace d2k::doctor
