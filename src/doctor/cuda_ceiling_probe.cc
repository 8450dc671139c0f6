#include "doctor/cuda_ceiling_probe.h"

#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "runtime/buffer.h"

namespace d2k::doctor {
namespace {

// Large enough that launch overhead and tails vanish: an 8192^3 product is over a teraflop, and
// a 1 GiB copy far exceeds any cache.
constexpr int64_t kMatmulSize = 8192;
constexpr int64_t kCopyBytes = int64_t{1} << 30;
constexpr int kWarmupCalls = 3;
constexpr int kCallsPerRepeat = 20;
constexpr int kRepeats = 5;  // the best repeat counts: a ceiling is what the device can reach

// get_inputs(config) and run(...) in the shape python::Session loads for tasks. TF32 stays off,
// so the fp32 ceiling is that of true fp32 products.
constexpr const char* kInputsSource = R"py(
import torch

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def get_inputs(config):
    n = int(config["n"])
    dtype = DTYPES[config["dtype"]]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    a = torch.randn((n, n), generator=gen, device="cuda", dtype=torch.float32).to(dtype)
    b = torch.randn((n, n), generator=gen, device="cuda", dtype=torch.float32).to(dtype)
    return [a, b, torch.empty((n, n), device="cuda", dtype=dtype)]
)py";

constexpr const char* kMatmulSource = R"py(
import torch

torch.backends.cuda.matmul.allow_tf32 = False


def run(a, b, out):
    return torch.matmul(a, b, out=out)
)py";

std::filesystem::path write_scripts() {
  std::string pattern = (std::filesystem::temp_directory_path() / "d2k-doctor-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create " + pattern);
  const std::filesystem::path dir = pattern;
  std::ofstream(dir / "ceiling_inputs.py") << kInputsSource;
  std::ofstream(dir / "ceiling_matmul.py") << kMatmulSource;
  return dir;
}

// The best of kRepeats timings of `calls` (queued on `stream`), in seconds per repeat.
template <typename Calls>
double best_seconds(const runtime::CudaStream& stream, Calls&& calls) {
  double best = 0.0;
  for (int repeat = 0; repeat < kRepeats; ++repeat) {
    runtime::CudaEvent start;
    runtime::CudaEvent end;
    start.record(stream.handle());
    calls();
    end.record(stream.handle());
    stream.synchronize();
    const double seconds = end.seconds_since(start);
    if (repeat == 0 || seconds < best) best = seconds;
  }
  return best;
}

}  // namespace

CudaCeilingProbe::CudaCeilingProbe()
    : context_(0),
      scripts_(write_scripts()),
      session_(python::SessionOptions{true, reinterpret_cast<uintptr_t>(stream_.handle())}) {
  session_.load_inputs_module(scripts_ / "ceiling_inputs.py");
  session_.load_implementation(scripts_ / "ceiling_matmul.py");
}

CudaCeilingProbe::~CudaCeilingProbe() {
  std::error_code ignored;
  std::filesystem::remove_all(scripts_, ignored);
}

double CudaCeilingProbe::matmul_flops_per_s(const std::string& math_dtype) {
  const int handle = session_.make_arguments({{"n", kMatmulSize}, {"dtype", math_dtype}});
  for (int i = 0; i < kWarmupCalls; ++i) session_.call(handle);
  stream_.synchronize();
  const double seconds = best_seconds(stream_, [&] {
    for (int i = 0; i < kCallsPerRepeat; ++i) session_.call(handle);
  });
  session_.clear_last_result();
  session_.release_arguments(handle);
  const double flops = 2.0 * static_cast<double>(kMatmulSize) * kMatmulSize * kMatmulSize;
  return flops * kCallsPerRepeat / seconds;
}

double CudaCeilingProbe::copy_bytes_per_s() {
  runtime::Buffer source(kCopyBytes, true);
  runtime::Buffer destination(kCopyBytes, true);
  source.fill(1, stream_.handle());
  runtime::copy_same_residency(destination.data(), source.data(), kCopyBytes, true, stream_.handle());
  stream_.synchronize();
  const double seconds = best_seconds(stream_, [&] {
    for (int i = 0; i < kCallsPerRepeat; ++i) {
      runtime::copy_same_residency(destination.data(), source.data(), kCopyBytes, true,
                                   stream_.handle());
    }
  });
  // Each copy reads the buffer once and writes it once.
  return 2.0 * static_cast<double>(kCopyBytes) * kCallsPerRepeat / seconds;
}

int64_t CudaCeilingProbe::matmul_size() const { return kMatmulSize; }
int64_t CudaCeilingProbe::copy_bytes() const { return kCopyBytes; }

}  // namespace d2k::doctor
