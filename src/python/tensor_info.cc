#include "python/tensor_info.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "runtime/cuda_context.h"

namespace d2k::python {

int64_t TensorInfo::numel() const {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  return count;
}

bool TensorInfo::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

std::vector<std::byte> copy_to_host(const TensorInfo& tensor) {
  std::vector<std::byte> packed(tensor.nbytes());
  if (packed.empty()) return packed;
  if (tensor.is_contiguous()) {
    runtime::copy_to_host(packed.data(), tensor.data, packed.size(), tensor.on_device);
    return packed;
  }
  // Strided: copy the span the view covers, then gather element by element on the host.
  int64_t span = 1;
  for (size_t i = 0; i < tensor.shape.size(); ++i) {
    if (tensor.strides[i] < 0) throw std::runtime_error("negative strides are not supported");
    span += (tensor.shape[i] - 1) * tensor.strides[i];
  }
  std::vector<std::byte> storage(static_cast<size_t>(span) * tensor.element_size);
  runtime::copy_to_host(storage.data(), tensor.data, storage.size(), tensor.on_device);
  const size_t rank = tensor.shape.size();
  std::vector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < tensor.numel(); ++linear) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset += index[d] * tensor.strides[d];
    std::memcpy(packed.data() + linear * tensor.element_size,
                storage.data() + offset * tensor.element_size, tensor.element_size);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < tensor.shape[d]) break;
      index[d] = 0;
    }
  }
  return packed;
}

}  // namespace d2k::python
