// Baseline in CUDA C++: the direct five-step recurrence, kernel for kernel the Triton baseline
// in solution.py, written against d2k's native ABI (include/d2k/native_abi.h,
// docs/native-abi.md).
//
//   sumsq[b] = sum(fp32(G[b])^2)                      sumsq_kernel (fp32, atomics into [batch])
//   X        = fp16(fp32(G) / (sqrt(sumsq) + 1e-7))    normalize_kernel
//   for (a, b, c) in the five coefficient triples:
//     A  = X X^T                                       gemm_kernel, M x M, fp16 store
//     P  = c (A A) + b A                               gemm_kernel with the addend, fp16 store
//     X' = 1 (P X) + a X                               gemm_kernel with the addend
//   the last X' is stored straight into the bf16 output the harness allocated.
//
// One batched GEMM kernel does all three products: C = alpha (A B) + beta D, fp16 operands on
// tensor cores (WMMA 16x16x16, fp32 accumulation), the epilogue in fp32, then one rounding to
// the output type. A is row-major; B is row-major or, for X^T, X itself read column-major, so no
// transposed copy is made. Rounding happens at the same points as in the Triton baseline: A once,
// c A^2 + b A once, P X + a X once (to bf16 on the last step).
//
// The two fp16 iterates (ping-pong), A, P and the per-matrix sums of squares live in the
// workspace d2k_native_setup asks for: 2 * batch * M * N + 2 * batch * M * M halves and batch
// floats, within the task's O(batch * M * N + batch * min(M, N)^2) memory bound.
#include <cstdio>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <d2k/native_abi.h>

namespace {

using namespace nvcuda;

// (a_k, b_k, c_k) for k = 0..4, applied in this order.
constexpr double kCoefficients[5][3] = {
    {7.892582874424408, -20.38301394587957, 13.555306149406924},
    {3.911484868135431, -2.5464635929060884, 0.4268988319673074},
    {3.760657955697423, -2.512819018216563, 0.4323647349070073},
    {3.160399673686287, -2.149649518898498, 0.3996366907664389},
    {2.1910971618617303, -1.441662010214663, 0.328146487623155},
};
constexpr float kEps = 1e-7f;

// The two passes over G: a block covers kNormRows full rows of one matrix.
constexpr int kNormThreads = 256;
constexpr int kNormRows = 8;

// GEMM tiling: a 128 x 128 output tile per block of 8 warps (2 x 4), 64 x 32 per warp, that is
// 4 x 2 WMMA fragments; K advances 32 at a time through shared memory.
constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 32;
constexpr int kWarpsM = 2;
constexpr int kWarpsN = 4;
constexpr int kGemmThreads = 32 * kWarpsM * kWarpsN;
constexpr int kWM = kBM / kWarpsM;
constexpr int kWN = kBN / kWarpsN;
constexpr int kFragsM = kWM / 16;
constexpr int kFragsN = kWN / 16;
// 8 halves (16 bytes) of padding per shared-memory row: rows stay 16-byte aligned for vector
// stores and fragment rows stay 32-byte aligned, and consecutive rows start in other banks.
constexpr int kPad = 8;
constexpr int kALd = kBK + kPad;        // A tile: kBM rows of kBK
constexpr int kBRowLd = kBN + kPad;     // B tile, row-major: kBK rows of kBN
constexpr int kBColLd = kBK + kPad;     // B tile, column-major: kBN columns of kBK
constexpr int kBTileElems = kBK * kBRowLd > kBN * kBColLd ? kBK * kBRowLd : kBN * kBColLd;

// Workspace carving: every region starts 256-byte aligned.
constexpr size_t kAlign = 256;
size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

struct Shape {
  int64_t batch = 0;
  int64_t m = 0;
  int64_t n = 0;
};

struct Workspace {
  __half* x[2];
  __half* gram;
  __half* poly;
  float* sumsq;
};

size_t workspace_bytes(const Shape& s) {
  const size_t x = aligned(sizeof(__half) * s.batch * s.m * s.n);
  const size_t square = aligned(sizeof(__half) * s.batch * s.m * s.m);
  return 2 * x + 2 * square + aligned(sizeof(float) * s.batch);
}

Workspace carve(void* base, const Shape& s) {
  char* at = static_cast<char*>(base);
  Workspace w;
  for (auto& x : w.x) {
    x = reinterpret_cast<__half*>(at);
    at += aligned(sizeof(__half) * s.batch * s.m * s.n);
  }
  w.gram = reinterpret_cast<__half*>(at);
  at += aligned(sizeof(__half) * s.batch * s.m * s.m);
  w.poly = reinterpret_cast<__half*>(at);
  at += aligned(sizeof(__half) * s.batch * s.m * s.m);
  w.sumsq = reinterpret_cast<float*>(at);
  return w;
}

__global__ void sumsq_kernel(const __nv_bfloat16* g, float* sumsq, int64_t m, int64_t n) {
  const int64_t b = blockIdx.y;
  const int64_t first_row = static_cast<int64_t>(blockIdx.x) * kNormRows;
  const int64_t rows = min(static_cast<int64_t>(kNormRows), m - first_row);
  const __nv_bfloat16* base = g + (b * m + first_row) * n;
  float sum = 0.0f;
  for (int64_t i = threadIdx.x; i < rows * n; i += blockDim.x) {
    const float v = __bfloat162float(base[i]);
    sum += v * v;
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  __shared__ float warp_sums[kNormThreads / 32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float block_sum = 0.0f;
    for (int w = 0; w < kNormThreads / 32; ++w) block_sum += warp_sums[w];
    atomicAdd(sumsq + b, block_sum);
  }
}

__global__ void normalize_kernel(const __nv_bfloat16* g, const float* sumsq, __half* x, int64_t m,
                                 int64_t n, float eps) {
  const int64_t b = blockIdx.y;
  const int64_t first_row = static_cast<int64_t>(blockIdx.x) * kNormRows;
  const int64_t rows = min(static_cast<int64_t>(kNormRows), m - first_row);
  const int64_t offset = (b * m + first_row) * n;
  const float denominator = sqrtf(sumsq[b]) + eps;
  for (int64_t i = threadIdx.x; i < rows * n; i += blockDim.x) {
    x[offset + i] = __float2half_rn(__bfloat162float(g[offset + i]) / denominator);
  }
}

__device__ __forceinline__ void store(__half* at, float v) { *at = __float2half_rn(v); }
__device__ __forceinline__ void store(__nv_bfloat16* at, float v) { *at = __float2bfloat16_rn(v); }

// Copies the 8 halves row[col .. col + 8) to `to` (16-byte aligned shared memory), with zeros
// past `limit` or for a row outside the matrix. One 16-byte load when the whole vector is inside
// and `vec` says rows are 16-byte aligned.
__device__ __forceinline__ void load8(__half* to, const __half* row, int64_t col, int64_t limit,
                                      bool row_ok, bool vec) {
  if (row_ok && vec && col + 8 <= limit) {
    *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(row + col);
    return;
  }
  for (int i = 0; i < 8; ++i) {
    to[i] = row_ok && col + i < limit ? row[col + i] : __float2half_rn(0.0f);
  }
}

// C[b] = alpha * (A[b] @ B[b]) + beta * D[b] (D only when `d` is not null); grid (N tiles,
// M tiles, batch). A[b] is M x K row-major with leading dimension lda; B[b] is K x N, row-major
// (B(k, n) = b[k * ldb + n]) or, when kBColumnMajor, B(k, n) = b[n * ldb + k]; C and D are
// M x N row-major. `vec`: every operand's base and leading dimension allow 16-byte loads.
template <bool kBColumnMajor, typename OutT>
__global__ void __launch_bounds__(kGemmThreads)
gemm_kernel(const __half* a, const __half* b, OutT* c, const __half* d, int64_t m, int64_t n,
            int64_t k, int64_t lda, int64_t ldb, int64_t ldc, int64_t ldd, int64_t batch_a,
            int64_t batch_b, int64_t batch_c, int64_t batch_d, float alpha, float beta,
            bool vec) {
  __shared__ __align__(128) __half a_tile[kBM * kALd];
  __shared__ __align__(128) __half b_tile[kBTileElems];
  __shared__ __align__(128) float scratch[kWarpsM * kWarpsN][16 * 16];

  const int64_t batch = blockIdx.z;
  a += batch * batch_a;
  b += batch * batch_b;
  c += batch * batch_c;
  if (d != nullptr) d += batch * batch_d;
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * kBM;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * kBN;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int warp_m = warp / kWarpsN;
  const int warp_n = warp % kWarpsN;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFragsM][kFragsN];
  // Fully unrolled loops over the fragments keep them in registers.
#pragma unroll
  for (int i = 0; i < kFragsM; ++i) {
#pragma unroll
    for (int j = 0; j < kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  }

  for (int64_t k0 = 0; k0 < k; k0 += kBK) {
    // A tile: kBM rows of kBK, 8 halves per thread and step.
    for (int v = threadIdx.x; v < kBM * kBK / 8; v += kGemmThreads) {
      const int row = v / (kBK / 8);
      const int col = v % (kBK / 8) * 8;
      const bool row_ok = m0 + row < m;
      load8(a_tile + row * kALd + col, row_ok ? a + (m0 + row) * lda : a, k0 + col, k, row_ok,
            vec);
    }
    if (kBColumnMajor) {
      // Column n of B is row n of the buffer: kBN such rows of kBK.
      for (int v = threadIdx.x; v < kBN * kBK / 8; v += kGemmThreads) {
        const int col = v / (kBK / 8);
        const int kk = v % (kBK / 8) * 8;
        const bool col_ok = n0 + col < n;
        load8(b_tile + col * kBColLd + kk, col_ok ? b + (n0 + col) * ldb : b, k0 + kk, k, col_ok,
              vec);
      }
    } else {
      for (int v = threadIdx.x; v < kBK * kBN / 8; v += kGemmThreads) {
        const int kk = v / (kBN / 8);
        const int col = v % (kBN / 8) * 8;
        const bool row_ok = k0 + kk < k;
        load8(b_tile + kk * kBRowLd + col, row_ok ? b + (k0 + kk) * ldb : b, n0 + col, n, row_ok,
              vec);
      }
    }
    __syncthreads();

#pragma unroll
    for (int kk = 0; kk < kBK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a_frag[kFragsM];
      using BLayout = std::conditional_t<kBColumnMajor, wmma::col_major, wmma::row_major>;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, BLayout> b_frag[kFragsN];
#pragma unroll
      for (int i = 0; i < kFragsM; ++i) {
        wmma::load_matrix_sync(a_frag[i], a_tile + (warp_m * kWM + i * 16) * kALd + kk, kALd);
      }
#pragma unroll
      for (int j = 0; j < kFragsN; ++j) {
        const int col = warp_n * kWN + j * 16;
        if constexpr (kBColumnMajor) {
          wmma::load_matrix_sync(b_frag[j], b_tile + col * kBColLd + kk, kBColLd);
        } else {
          wmma::load_matrix_sync(b_frag[j], b_tile + kk * kBRowLd + col, kBRowLd);
        }
      }
#pragma unroll
      for (int i = 0; i < kFragsM; ++i) {
#pragma unroll
        for (int j = 0; j < kFragsN; ++j)
          wmma::mma_sync(acc[i][j], a_frag[i], b_frag[j], acc[i][j]);
      }
    }
    __syncthreads();
  }

  // Epilogue, one 16 x 16 fragment at a time through the warp's scratch: each lane writes 8
  // elements of alpha * acc + beta * D, rounded once to the output type.
  float* mine = scratch[warp];
#pragma unroll
  for (int i = 0; i < kFragsM; ++i) {
#pragma unroll
    for (int j = 0; j < kFragsN; ++j) {
      wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 16 * 16; e += 32) {
        const int64_t row = m0 + warp_m * kWM + i * 16 + e / 16;
        const int64_t col = n0 + warp_n * kWN + j * 16 + e % 16;
        if (row < m && col < n) {
          float v = alpha * mine[e];
          if (d != nullptr) v += beta * __half2float(d[row * ldd + col]);
          store(c + row * ldc + col, v);
        }
      }
      __syncwarp();
    }
  }
}

bool aligned16(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer) % 16 == 0; }

// C = alpha * (A @ B) + beta * D over the batch; see gemm_kernel for the layouts.
template <bool kBColumnMajor, typename OutT>
void gemm(cudaStream_t stream, const Shape& s, const __half* a, const __half* b, OutT* c,
          const __half* d, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
          int64_t ldd, float alpha, float beta) {
  const bool vec = aligned16(a) && aligned16(b) && lda % 8 == 0 && ldb % 8 == 0;
  const dim3 grid(static_cast<unsigned>((n + kBN - 1) / kBN),
                  static_cast<unsigned>((m + kBM - 1) / kBM), static_cast<unsigned>(s.batch));
  // Every operand is batch-contiguous: matrix b starts b * rows * leading dimension in.
  const int64_t a_rows = m;
  const int64_t b_rows = kBColumnMajor ? n : k;
  gemm_kernel<kBColumnMajor, OutT><<<grid, kGemmThreads, 0, stream>>>(
      a, b, c, d, m, n, k, lda, ldb, ldc, ldd, a_rows * lda, b_rows * ldb, m * ldc, m * ldd,
      alpha, beta, vec);
}

int32_t fail(char* error, size_t error_size, const char* message) {
  std::snprintf(error, error_size, "%s", message);
  return 1;
}

bool is_contiguous(const DLTensor& t) {
  int64_t expected = 1;
  for (int dim = t.ndim - 1; dim >= 0; --dim) {
    if (t.shape[dim] != 1 && t.strides[dim] != expected) return false;
    expected *= t.shape[dim];
  }
  return true;
}

bool is_bf16(const DLTensor& t) {
  return t.dtype.code == kDLBfloat && t.dtype.bits == 16 && t.dtype.lanes == 1;
}

// Checks the call against the task's contract and reads the batch and matrix shape.
int32_t read_shape(const d2k_native_call* call, Shape* shape, char* error, size_t error_size) {
  if (call->num_inputs != 1 || call->num_outputs != 1) {
    return fail(error, error_size, "expected one input tensor G and one output");
  }
  const d2k_native_param* steps = d2k_native_find_param(call, "steps");
  if (steps == nullptr || steps->kind != D2K_NATIVE_INT64 || steps->int64_value != 5) {
    return fail(error, error_size, "steps must be the integer 5");
  }
  const DLTensor& g = call->inputs[0];
  const DLTensor& out = call->outputs[0];
  if (g.ndim < 2) return fail(error, error_size, "G needs at least two dimensions");
  if (g.device.device_type != kDLCUDA || out.device.device_type != kDLCUDA) {
    return fail(error, error_size, "G and the output must be CUDA tensors");
  }
  if (!is_bf16(g) || !is_bf16(out)) return fail(error, error_size, "G and the output must be bf16");
  if (out.ndim != g.ndim) return fail(error, error_size, "the output must have G's shape");
  for (int dim = 0; dim < g.ndim; ++dim) {
    if (out.shape[dim] != g.shape[dim])
      return fail(error, error_size, "the output must have G's shape");
  }
  if (!is_contiguous(g) || !is_contiguous(out)) {
    return fail(error, error_size, "G and the output must be contiguous");
  }
  shape->m = g.shape[g.ndim - 2];
  shape->n = g.shape[g.ndim - 1];
  shape->batch = 1;
  for (int dim = 0; dim < g.ndim - 2; ++dim) shape->batch *= g.shape[dim];
  if (shape->batch > 65535) return fail(error, error_size, "at most 65535 matrices per call");
  return 0;
}

}  // namespace

int32_t d2k_native_abi_version(void) { return D2K_NATIVE_ABI_VERSION; }

int32_t d2k_native_setup(const d2k_native_call* call, uint64_t* bytes, char* error,
                         size_t error_size) {
  Shape shape;
  if (read_shape(call, &shape, error, error_size) != 0) return 1;
  *bytes = workspace_bytes(shape);
  return 0;
}

int32_t d2k_native_run(const d2k_native_call* call, char* error, size_t error_size) {
  Shape s;
  if (read_shape(call, &s, error, error_size) != 0) return 1;
  if (s.batch * s.m * s.n == 0) return 0;
  if (call->workspace == nullptr || call->workspace_bytes < workspace_bytes(s)) {
    return fail(error, error_size, "the workspace is smaller than d2k_native_setup asked for");
  }
  const auto stream = static_cast<cudaStream_t>(call->stream);
  const auto* g = static_cast<const __nv_bfloat16*>(call->inputs[0].data);
  auto* out = static_cast<__nv_bfloat16*>(call->outputs[0].data);
  const Workspace w = carve(call->workspace, s);

  cudaMemsetAsync(w.sumsq, 0, sizeof(float) * s.batch, stream);
  const dim3 norm_grid(static_cast<unsigned>((s.m + kNormRows - 1) / kNormRows),
                       static_cast<unsigned>(s.batch));
  sumsq_kernel<<<norm_grid, kNormThreads, 0, stream>>>(g, w.sumsq, s.m, s.n);
  normalize_kernel<<<norm_grid, kNormThreads, 0, stream>>>(g, w.sumsq, w.x[0], s.m, s.n, kEps);

  int current = 0;
  for (int step = 0; step < 5; ++step) {
    const float a = static_cast<float>(kCoefficients[step][0]);
    const float b = static_cast<float>(kCoefficients[step][1]);
    const float c = static_cast<float>(kCoefficients[step][2]);
    const __half* x = w.x[current];
    // A = X X^T: B(k, n) = X[n, k], X itself read column-major.
    gemm<true>(stream, s, x, x, w.gram, static_cast<const __half*>(nullptr), s.m, s.m, s.n, s.n,
               s.n, s.m, 0, 1.0f, 0.0f);
    // P = c A A + b A.
    gemm<false>(stream, s, w.gram, w.gram, w.poly, w.gram, s.m, s.m, s.m, s.m, s.m, s.m, s.m, c,
                b);
    // X' = P X + a X, into the other iterate, or into the bf16 output on the last step.
    if (step == 4) {
      gemm<false>(stream, s, w.poly, x, out, x, s.m, s.n, s.m, s.m, s.n, s.n, s.n, 1.0f, a);
    } else {
      gemm<false>(stream, s, w.poly, x, w.x[1 - current], x, s.m, s.n, s.m, s.m, s.n, s.n, s.n,
                  1.0f, a);
      current = 1 - current;
    }
  }
  const cudaError_t launched = cudaGetLastError();
  if (launched != cudaSuccess) {
    std::snprintf(error, error_size, "CUDA error: %s", cudaGetErrorString(launched));
    return 1;
  }
  return 0;
}
