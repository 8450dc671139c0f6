#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace d2k::python {

// A borrowed description of a tensor's memory, read through DLPack. Valid while the Python
// tensor it came from is alive.
struct TensorInfo {
  void* data = nullptr;
  std::string dtype;  // "float32", "bfloat16", "int64", ...
  size_t element_size = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements
  bool on_device = false;

  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size; }
  bool is_contiguous() const;
};

// Copies the tensor's elements to host memory in row-major order, whatever its strides.
std::vector<std::byte> copy_to_host(const TensorInfo& tensor);

}  // namespace d2k::python
