#pragma once
// Where a traced kernel came from, told by its name: a vendor library (cuBLAS, cuBLASLt, cuDNN),
// PyTorch's own ATen kernels (split into glue that only fills or copies memory, and compute), or
// the candidate's own code (Triton, CUDA C++).

#include <string>
#include <string_view>

namespace d2k::audit {

enum class KernelOrigin { custom, library, aten_glue, aten_compute };

std::string to_string(KernelOrigin origin);

// By name only: the tracer reports nothing else about a kernel's origin. A candidate can name
// its own kernel like a library's; that makes it look forbidden, never allowed.
KernelOrigin kernel_origin(std::string_view demangled_name);

}  // namespace d2k::audit
