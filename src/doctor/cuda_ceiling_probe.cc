#include "doctor/cuda_ceiling_probe.h"

#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "runtime/buffer.h"
#include "util/temp_dir.h"

namespace d2k::doctor {
namespace {

// Large enough that launch overhead and tails vanish: an 8192^3 product is over a teraflop, and
// 4 GiB buffers are 80 times the H200's L2.
constexpr int64_t kMatmulSize = 8192;
constexpr int64_t kStreamBytes = int64_t{1} << 32;
constexpr int kWarmupCalls = 3;
constexpr int kCallsPerRepeat = 10;
constexpr int kRepeats = 5;  // the best repeat counts: a ceiling is what the device can reach

// get_inputs(config) in the shape python::Session loads for tasks: two matrices and an output,
// or two streamed buffers and one partial sum per Triton program.
constexpr const char* kInputsSource = R"py(
import torch

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def get_inputs(config):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    if config["kind"] == "matmul":
        n = int(config["n"])
        dtype = DTYPES[config["dtype"]]
        a = torch.randn((n, n), generator=gen, device="cuda", dtype=torch.float32).to(dtype)
        b = torch.randn((n, n), generator=gen, device="cuda", dtype=torch.float32).to(dtype)
        return [a, b, torch.empty((n, n), device="cuda", dtype=dtype)]
    elements = int(config["bytes"]) // 4
    x = torch.rand(elements, generator=gen, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    partial = torch.empty(elements // (4096 * 16) + 1, device="cuda", dtype=torch.float32)
    return [x, y, partial]
)py";

// The probes. TF32 stays off, so the fp32 ceiling is that of true fp32 products. The Triton
// kernels are the usual shapes of fast Hopper kernels (large tensor-core tiles, a grouped tile
// order, 16-byte streaming accesses); where Triton is missing their probes raise and are skipped.
constexpr const char* kProbesSource = R"py(
import torch

torch.backends.cuda.matmul.allow_tf32 = False

try:
    import triton
    import triton.language as tl
except ImportError:
    triton = None


def cublas_matmul(a, b, out):
    return torch.matmul(a, b, out=out)


# The session loads a module for its run(...); the probes are called by name, this one included.
run = cublas_matmul


def torch_sum(x, y, partial):
    return torch.sum(x, dim=0, keepdim=True, out=partial[:1])


def torch_fill(x, y, partial):
    return y.fill_(1.0)


def torch_copy(x, y, partial):
    return y.copy_(x)


if triton is not None:
    @triton.autotune(
        configs=[
            triton.Config({"BM": 128, "BN": 256, "BK": 64, "G": 8}, num_stages=3, num_warps=8),
            triton.Config({"BM": 256, "BN": 128, "BK": 64, "G": 8}, num_stages=3, num_warps=8),
            triton.Config({"BM": 128, "BN": 128, "BK": 64, "G": 8}, num_stages=4, num_warps=4),
        ],
        key=["n", "ieee"],
    )
    @triton.jit
    def _matmul(a, b, c, n, ieee: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr, G: tl.constexpr):
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(n, BM)
        tiles_n = tl.cdiv(n, BN)
        group = pid // (G * tiles_n)
        first_m = group * G
        size_m = min(tiles_m - first_m, G)
        pid_m = first_m + (pid % (G * tiles_n)) % size_m
        pid_n = (pid % (G * tiles_n)) // size_m
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, n, BK):
            x = tl.load(a + rm[:, None] * n + (k + rk)[None, :])
            w = tl.load(b + (k + rk)[:, None] * n + rn[None, :])
            if ieee:
                acc = tl.dot(x, w, acc, input_precision="ieee")
            else:
                acc = tl.dot(x, w, acc)
        tl.store(c + rm[:, None] * n + rn[None, :], acc.to(c.dtype.element_ty))

    @triton.jit
    def _read(x, partial, elements, BLOCK: tl.constexpr, ITERS: tl.constexpr):
        pid = tl.program_id(0)
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for i in range(ITERS):
            offsets = (pid * ITERS + i) * BLOCK + tl.arange(0, BLOCK)
            acc += tl.load(x + offsets, mask=offsets < elements, other=0.0,
                           eviction_policy="evict_first")
        tl.store(partial + pid, tl.sum(acc))

    @triton.jit
    def _write(y, elements, BLOCK: tl.constexpr, ITERS: tl.constexpr):
        pid = tl.program_id(0)
        ones = tl.full((BLOCK,), 1.0, dtype=tl.float32)
        for i in range(ITERS):
            offsets = (pid * ITERS + i) * BLOCK + tl.arange(0, BLOCK)
            tl.store(y + offsets, ones, mask=offsets < elements, eviction_policy="evict_first")


def _programs(elements):
    return (triton.cdiv(elements, 4096 * 16),)


def triton_matmul(a, b, out):
    if triton is None:
        raise RuntimeError("Triton is not installed")
    n = a.shape[0]
    grid = lambda meta: (triton.cdiv(n, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
    _matmul[grid](a, b, out, n, a.dtype == torch.float32)
    return out


def triton_read(x, y, partial):
    if triton is None:
        raise RuntimeError("Triton is not installed")
    _read[_programs(x.numel())](x, partial, x.numel(), BLOCK=4096, ITERS=16, num_warps=8)
    return partial


def triton_write(x, y, partial):
    if triton is None:
        raise RuntimeError("Triton is not installed")
    _write[_programs(y.numel())](y, y.numel(), BLOCK=4096, ITERS=16, num_warps=8)
    return y
)py";

std::filesystem::path write_scripts() {
  const std::filesystem::path dir =
      util::make_unique_dir(std::filesystem::temp_directory_path(), "d2k-doctor-");
  std::ofstream(dir / "ceiling_inputs.py") << kInputsSource;
  std::ofstream(dir / "ceiling_probes.py") << kProbesSource;
  return dir;
}

}  // namespace

CudaCeilingProbe::CudaCeilingProbe()
    : context_(0),
      scripts_(write_scripts()),
      session_(python::SessionOptions{true, reinterpret_cast<uintptr_t>(stream_.handle())}) {
  session_.load_inputs_module(scripts_ / "ceiling_inputs.py");
  session_.load_implementation(scripts_ / "ceiling_probes.py");
}

CudaCeilingProbe::~CudaCeilingProbe() {
  std::error_code ignored;
  std::filesystem::remove_all(scripts_, ignored);
}

CudaCeilingProbe::Way CudaCeilingProbe::script(const std::string& source,
                                               const std::string& function, int handle) {
  return {source, [this, function, handle] { session_.call_function(function, handle); }};
}

record::Ceiling CudaCeilingProbe::best(const std::vector<Way>& ways, double units_per_call) {
  record::Ceiling best;
  for (const Way& way : ways) {
    try {
      for (int i = 0; i < kWarmupCalls; ++i) way.call();
      stream_.synchronize();
    } catch (const python::CallError&) {
      continue;  // this way is not available here (no Triton); the others decide
    }
    for (int repeat = 0; repeat < kRepeats; ++repeat) {
      runtime::CudaEvent start;
      runtime::CudaEvent end;
      start.record(stream_.handle());
      for (int i = 0; i < kCallsPerRepeat; ++i) way.call();
      end.record(stream_.handle());
      stream_.synchronize();
      const double rate = units_per_call * kCallsPerRepeat / end.seconds_since(start);
      if (rate > best.rate) best = {rate, way.source};
    }
  }
  session_.clear_last_result();
  return best;
}

record::Ceiling CudaCeilingProbe::best_of_scripts(const nlohmann::json& inputs,
                                                  const std::vector<ScriptWay>& scripts,
                                                  double units_per_call, std::vector<Way> ways) {
  std::vector<std::string> unread;  // the probe's own inputs: every key is read or ignored
  const int handle = session_.make_arguments(inputs, {}, unread);
  for (const ScriptWay& way : scripts) ways.push_back(script(way.source, way.function, handle));
  const record::Ceiling ceiling = best(ways, units_per_call);
  session_.release_arguments(handle);
  return ceiling;
}

record::Ceiling CudaCeilingProbe::matmul(const std::string& math_dtype) {
  const double flops = 2.0 * static_cast<double>(kMatmulSize) * kMatmulSize * kMatmulSize;
  return best_of_scripts({{"kind", "matmul"}, {"n", kMatmulSize}, {"dtype", math_dtype}},
                         {{"cuBLAS (torch.matmul)", "cublas_matmul"},
                          {"Triton tensor-core matmul", "triton_matmul"}},
                         flops);
}

record::Ceiling CudaCeilingProbe::read() {
  return best_of_scripts({{"kind", "stream"}, {"bytes", kStreamBytes}},
                         {{"torch.sum", "torch_sum"}, {"Triton streaming read", "triton_read"}},
                         static_cast<double>(kStreamBytes));
}

record::Ceiling CudaCeilingProbe::write() {
  return best_of_scripts({{"kind", "stream"}, {"bytes", kStreamBytes}},
                         {{"torch fill_", "torch_fill"}, {"Triton streaming store", "triton_write"}},
                         static_cast<double>(kStreamBytes));
}

record::Ceiling CudaCeilingProbe::copy() {
  runtime::Buffer source(kStreamBytes, true);
  runtime::Buffer destination(kStreamBytes, true);
  source.fill(1, stream_.handle());
  const Way driver{"driver device-to-device copy", [&] {
                     runtime::copy_same_residency(destination.data(), source.data(), kStreamBytes,
                                                  true, stream_.handle());
                   }};
  // Each copy reads the buffer once and writes it once.
  return best_of_scripts({{"kind", "stream"}, {"bytes", kStreamBytes}},
                         {{"torch copy_", "torch_copy"}}, 2.0 * kStreamBytes, {driver});
}

int64_t CudaCeilingProbe::matmul_size() const { return kMatmulSize; }
int64_t CudaCeilingProbe::stream_bytes() const { return kStreamBytes; }

}  // namespace d2k::doctor
