#pragma once
// The ceilings of CUDA device 0, each the best of a library routine and a tuned Triton kernel run
// through the embedded interpreter (matrix products: cuBLAS and a Triton tensor-core matmul;
// reads: a sum and a Triton streaming read; writes: a fill and a Triton store; copies: the
// driver's copy and PyTorch's), all timed with CUDA events on a harness stream.

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

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

  record::Ceiling matmul(const std::string& math_dtype) override;
  record::Ceiling read() override;
  record::Ceiling write() override;
  record::Ceiling copy() override;
  int64_t matmul_size() const override;
  int64_t stream_bytes() const override;

  std::string device_name() const { return context_.device_name(); }
  std::string driver_version() const { return context_.driver_version(); }

 private:
  // One way to reach a ceiling: a probe function of the script over an argument list, or a
  // C++ launch (the driver's copy), and the units one call moves or computes.
  struct Way {
    std::string source;
    std::function<void()> call;
  };
  // The highest rate of `ways`, each timed as the best of several repeats of back-to-back calls.
  record::Ceiling best(const std::vector<Way>& ways, double units_per_call);
  Way script(const std::string& source, const std::string& function, int handle);

  runtime::CudaContext context_;
  runtime::CudaStream stream_;
  std::filesystem::path scripts_;  // the two Python files the session loads, removed at the end
  python::Session session_;
  bool triton_ = false;  // whether the script's Triton kernels compiled
};

}  // namespace d2k::doctor
