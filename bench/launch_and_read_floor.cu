// Floors that no sampling kernel can go below, timed as d2k's graph mode times a candidate: calls
// captured into one CUDA graph, replayed, time per call.
//   1. an empty kernel;
//   2. two empty kernels chained by programmatic dependent launch, the second waiting for the
//      first (the sampling expert's kernel 1 -> kernel 2 hand-over, with no work);
//   3. one read of a [batch, vocab] float32 array (a sum per CTA), at several CTA counts, on the
//      same buffer every call as the evaluator's replays do: the one-read floor of a shape.
// Usage: launch_and_read_floor BATCH VOCAB [BATCH VOCAB ...]   (prints one line per case)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kCallsPerGraph = 200;
constexpr int kReplays = 7;  // the median replay is reported
constexpr int kThreads = 256;

#define CHECK(expr)                                                                                 \
  do {                                                                                              \
    const cudaError_t status = (expr);                                                              \
    if (status != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(status)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

__global__ void empty_kernel() {}

__global__ void first_of_pair() { asm volatile("griddepcontrol.launch_dependents;"); }

__global__ void second_of_pair() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

// Each CTA sums its contiguous share of n4 float4s and writes one float: every byte read once.
__global__ void __launch_bounds__(kThreads) read_once(const float4* x, long long n4, float* out) {
  const long long per_cta = (n4 + gridDim.x - 1) / gridDim.x;
  const long long begin = per_cta * blockIdx.x, end = min(n4, begin + per_cta);
  float sum = 0.0f;
  for (long long i = begin + threadIdx.x; i < end; i += kThreads) {
    const float4 v = __ldcg(x + i);
    sum += (v.x + v.y) + (v.z + v.w);
  }
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  __shared__ float warp_sums[kThreads / 32];
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (float s : warp_sums) total += s;
    out[blockIdx.x] = total;
  }
}

struct Stream {
  cudaStream_t handle = nullptr;
  Stream() { CHECK(cudaStreamCreateWithFlags(&handle, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(handle); }
};

struct Event {
  cudaEvent_t handle = nullptr;
  Event() { CHECK(cudaEventCreate(&handle)); }
  ~Event() { cudaEventDestroy(handle); }
};

template <class T>
struct DeviceArray {
  T* data = nullptr;
  explicit DeviceArray(size_t n) {
    CHECK(cudaMalloc(&data, sizeof(T) * std::max<size_t>(n, 1)));
    CHECK(cudaMemset(data, 0, sizeof(T) * std::max<size_t>(n, 1)));
  }
  ~DeviceArray() { cudaFree(data); }
};

struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
  }
};

// Microseconds per call of `launch_call`, captured kCallsPerGraph times into one graph: the
// median of kReplays replays, after one warm-up replay.
template <class Launch>
double us_per_call(const Stream& stream, Launch launch_call) {
  Graph g;
  CHECK(cudaStreamBeginCapture(stream.handle, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kCallsPerGraph; ++i) launch_call();
  CHECK(cudaStreamEndCapture(stream.handle, &g.graph));
  CHECK(cudaGraphInstantiate(&g.exec, g.graph, 0));
  CHECK(cudaGraphLaunch(g.exec, stream.handle));
  CHECK(cudaStreamSynchronize(stream.handle));
  Event start, stop;
  std::vector<double> us;
  for (int r = 0; r < kReplays; ++r) {
    CHECK(cudaEventRecord(start.handle, stream.handle));
    CHECK(cudaGraphLaunch(g.exec, stream.handle));
    CHECK(cudaEventRecord(stop.handle, stream.handle));
    CHECK(cudaEventSynchronize(stop.handle));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start.handle, stop.handle));
    us.push_back(1e3 * ms / kCallsPerGraph);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

cudaError_t launch_with_early_start(void (*kernel)(), const Stream& stream) {
  cudaLaunchAttribute early_start;
  early_start.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early_start.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  config.stream = stream.handle;
  config.attrs = &early_start;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc % 2 == 0) {
    std::fprintf(stderr, "usage: %s BATCH VOCAB [BATCH VOCAB ...]\n", argv[0]);
    return 2;
  }
  int device = 0, sms = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const Stream stream;
  std::printf("empty kernel, 1 CTA: %.3f us per call\n",
              us_per_call(stream, [&] { empty_kernel<<<1, 32, 0, stream.handle>>>(); }));
  std::printf("two empty kernels, the second waiting by programmatic dependent launch: %.3f us per call\n",
              us_per_call(stream, [&] {
                CHECK(launch_with_early_start(first_of_pair, stream));
                CHECK(launch_with_early_start(second_of_pair, stream));
              }));
  for (int a = 1; a + 1 < argc; a += 2) {
    const long long batch = std::atoll(argv[a]), vocab = std::atoll(argv[a + 1]);
    const long long n4 = batch * vocab / 4;
    const DeviceArray<float4> x(static_cast<size_t>(n4));
    const double mb = 16.0 * n4 / 1e6;
    for (int ctas : {sms, 2 * sms, 4 * sms, 8 * sms, 16 * sms}) {
      const DeviceArray<float> out(static_cast<size_t>(ctas));
      const double us = us_per_call(stream, [&] { read_once<<<ctas, kThreads, 0, stream.handle>>>(x.data, n4, out.data); });
      std::printf("one read of %lld x %lld float32 (%.2f MB), %d CTAs: %.3f us per call (%.0f GB/s)\n", batch, vocab,
                  mb, ctas, us, 1e3 * mb / us);
    }
  }
  CHECK(cudaGetLastError());
  return 0;
}
