#include "audit/kernel_origin.h"

#include <regex>

namespace d2k::audit {
namespace {

// cuBLAS and cuBLASLt kernels: named after the library (its parameter types, such as
// cublasGemvParamsEx, show in a demangled name), Hopper's nvjet family, xmma kernels, the CUTLASS
// kernels it ships under architecture-numbered names (cutlass_80_simt_sgemm_...; a candidate's
// own CUTLASS instantiation is named after its own types), and the architecture-prefixed gemm
// kernels of older releases. cuDNN kernels carry its name or the "cudnn" namespace.
const std::regex kLibrary(
    R"(cublas|cudnn|^nvjet|xmma_|cutlass_\d+_\w*(gemm|conv)|)"
    R"(^(maxwell|volta|turing|ampere|hopper|sm\d+)_\w*(gemm|conv))",
    std::regex::icase);
// ATen kernels: its namespaces, and the FlashAttention kernels PyTorch builds in.
const std::regex kAten(R"(at::native::|at::cuda::|at_cuda_detail|pytorch_flash::|c10::)");
// ATen kernels that only set or move memory: fills (zeros, ones, full) and copies (contiguous,
// clone). Casts go through the copy kernel too, hence the limit on glue time (audit_rules.h).
const std::regex kAtenGlue(R"(FillFunctor|copy_kernel|CatArrayBatchedCopy)");

}  // namespace

std::string to_string(KernelOrigin origin) {
  switch (origin) {
    case KernelOrigin::custom: return "custom";
    case KernelOrigin::library: return "library";
    case KernelOrigin::aten_glue: return "aten_glue";
    case KernelOrigin::aten_compute: return "aten_compute";
  }
  return "custom";
}

KernelOrigin kernel_origin(std::string_view demangled_name) {
  const std::string name(demangled_name);
  if (std::regex_search(name, kLibrary)) return KernelOrigin::library;
  if (std::regex_search(name, kAten)) {
    return std::regex_search(name, kAtenGlue) ? KernelOrigin::aten_glue : KernelOrigin::aten_compute;
  }
  return KernelOrigin::custom;
}

}  // namespace d2k::audit
