#pragma once

#include <filesystem>
#include <string>

#include "python/tensor_info.h"
#include "worker/device.h"

namespace d2k::worker {

// Writes `tensor`'s elements in row-major order to `path`. A contiguous tensor is copied straight
// into the file's memory mapping (from the device through pinned pages, or from host memory),
// with no staging copy.
void write_tensor(const python::TensorInfo& tensor, const std::filesystem::path& path);

// The tensor's digest (runtime/input_digest.h) as hex: on the device with the digest kernel where
// it can, otherwise from a host copy. The same bytes give the same digest either way.
std::string tensor_digest(const python::TensorInfo& tensor, Device& device);

}  // namespace d2k::worker
