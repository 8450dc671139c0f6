#pragma once
// The ceilings of CUDA device 0: matrix products run by PyTorch (cuBLAS) through the embedded
// interpreter, copies by the driver, both timed with CUDA events on a harness stream.

#include <filesystem>
#include <memory>

#include "doctor/ceiling_probe.h"
#include "python/session.h"
#include "runtime/cuda_context.h"

namespace d2k::doctor {

class CudaCeilingProbe : public CeilingProbe {
 public:
  // Retains the primary context and starts the interpreter; throws when either cannot start.
  CudaCeilingProbe();
  ~CudaCeilingProbe() override;
  CudaCeilingProbe(const CudaCeilingProbe&) = delete;  // owns the stream and the script folder
  CudaCeilingProbe& operator=(const CudaCeilingProbe&) = delete;

  double matmul_flops_per_s(const std::string& math_dtype) override;
  double copy_bytes_per_s() override;
  int64_t matmul_size() const override;
  int64_t copy_bytes() const override;

  std::string device_name() const { return context_.device_name(); }
  std::string driver_version() const { return context_.driver_version(); }

 private:
  runtime::CudaContext context_;
  runtime::CudaStream stream_;
  std::filesystem::path scripts_;  // the two Python files the session loads, removed at the end
  python::Session session_;
};

}  // namespace d2k::doctor
