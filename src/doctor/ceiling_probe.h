#pragma once
// What `d2k doctor` measures on a device, behind an interface so tests can stand in a fake.

#include <cstdint>
#include <string>

namespace d2k::doctor {

class CeilingProbe {
 public:
  virtual ~CeilingProbe() = default;

  // Dense square matrix product throughput in flop/s, for a math dtype of task::kMathDtypes.
  virtual double matmul_flops_per_s(const std::string& math_dtype) = 0;
  // Device-to-device copy bandwidth in bytes/s, counting bytes read plus bytes written.
  virtual double copy_bytes_per_s() = 0;
  // The side of the square matrices and the size of the copied buffer, kept with the ceilings.
  virtual int64_t matmul_size() const = 0;
  virtual int64_t copy_bytes() const = 0;
};

}  // namespace d2k::doctor
