// Hadamard rotation fused with per-row e4m3 quantization: one pass over x, one write of y.
//
// n = M * P with P = 2^a and M = 1 or a special order (12, 20, 28); H_n = H_M (x) H_P.
// Rows with M > 1 (rotate_quant_special): one block per row, warp w owns positions
// [64 w, 64 w + 64) of all M chunks of P values.
//   1. The order-M mix runs first, on tensor cores, straight from the loaded bf16 values:
//      Y^T = H_M^T X^T with mma.m16n8k16 (A = H_M^T built in registers from the Paley rule,
//      B = the chunks as k rows, 8 groups of 8 positions as n columns). The bf16 inputs and +-1
//      entries are exact, the sum is fp32, so nothing is rounded beyond fp32.
//   2. The order-P Sylvester butterflies in fp32 on the accumulator layout: 16 consecutive
//      positions per thread (4 stages in registers), 4 threads per 64 positions (2 stages by
//      shuffles), the warps (log2(P / 64) stages) through one shared-memory exchange.
//   3. Epilogue: row amax by warp shuffles and one shared-memory step, then the 1/sqrt(n) and the
//      scale folded into one multiplier, e4m3 rounding with the hardware conversion, 16-byte
//      stores of the widened values.
// Rows with M = 1 and n <= 256 (rotate_quant_pow2): n / 8 lanes per row, 8 values per lane,
// 3 stages in registers and the rest by shuffles, two rows per lane in flight.

#include <cstdint>
#include <cstdio>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <d2k/native_abi.h>

namespace {

constexpr float kFp8Max = 448.0f;
constexpr float kAmaxFloor = 1e-4f;
constexpr unsigned kFull = 0xffffffffu;

// chi(d) for the prime q by Euler's criterion: 0, +1 on squares, -1 otherwise.
__device__ int legendre(int d, int q) {
  d %= q;
  if (d < 0) d += q;
  if (d == 0) return 0;
  int result = 1, base = d, e = (q - 1) / 2;
  while (e) {
    if (e & 1) result = result * base % q;
    base = base * base % q;
    e >>= 1;
  }
  return result == 1 ? 1 : -1;
}

// H_M[i][j] of the task's special matrices, 0 outside the matrix (the MMA padding).
template <int M>
__device__ int special_entry(int i, int j) {
  if (i >= M || j >= M) return 0;
  if constexpr (M == 12 || M == 20) {  // Paley I, q = M - 1: I + [[0, 1^T], [-1, Q]]
    if (i == j || i == 0) return 1;
    if (j == 0) return -1;
    return legendre(j - i, M - 1);
  } else {  // M == 28, Paley II, q = 13: C (x) [[1,-1],[-1,-1]] + I (x) [[1,1],[1,-1]]
    const int a = i >> 1, s = i & 1, b = j >> 1, t = j & 1;
    const int c = (a == b) ? 0 : ((a == 0 || b == 0) ? 1 : legendre(b - a, M / 2 - 1));
    const int outer = (s == 0 && t == 0) ? 1 : -1;
    const int inner = (s == 1 && t == 1) ? -1 : 1;
    return c * outer + (a == b ? inner : 0);
  }
}

__device__ __forceinline__ uint32_t bf16_sign_bits(int e) {
  return e > 0 ? 0x3F80u : (e < 0 ? 0xBF80u : 0u);
}

// Two values to e4m3 (nearest even, saturating) and back to bf16 (exact), packed.
__device__ __forceinline__ uint32_t quant_pair(float a, float b) {
  const __nv_fp8x2_storage_t f8 =
      __nv_cvt_float2_to_fp8x2(make_float2(a, b), __NV_SATFINITE, __NV_E4M3);
  const __half2_raw hr = __nv_cvt_fp8x2_to_halfraw2(f8, __NV_E4M3);
  const float2 f = __half22float2(__half2(hr));
  const __nv_bfloat162 bf = __float22bfloat162_rn(f);
  return *reinterpret_cast<const uint32_t*>(&bf);
}

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                         uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// In-place Sylvester butterflies over an array of L values (natural order).
template <int L, typename T>
__device__ __forceinline__ void butterflies(T (&v)[L]) {
#pragma unroll
  for (int h = 1; h < L; h *= 2) {
#pragma unroll
    for (int i = 0; i < L; ++i) {
      if ((i & h) == 0) {
        const T a = v[i], b = v[i + h];
        v[i] = a + b;
        v[i + h] = a - b;
      }
    }
  }
}

__device__ __forceinline__ float4 operator+(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__device__ __forceinline__ float4 operator-(float4 a, float4 b) {
  return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
}

template <int M>
__host__ __device__ constexpr int padded_order() { return (M + 15) / 16 * 16; }

template <int M, int P>
__host__ __device__ constexpr int exchange_bytes() {
  return (padded_order<M>() / 8) * 4 * (P / 64) * 32 * 16;
}

// One block per row of n = M * P values; P / 64 warps.
template <int M, int P>
__global__ void __launch_bounds__(P / 2, (P <= 512 ? 2 : 1))
rotate_quant_special(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y,
                     float* __restrict__ scales, float inv_sqrt_n) {
  constexpr int kTiles = padded_order<M>() / 16;  // MMA tiles along the chunk axis (k and m)
  constexpr int kSlots = 2 * kTiles;              // output chunks per lane: 16 mt + 8 h + g
  constexpr int kWarps = P / 64;
  constexpr int kPairs = kSlots * 4;              // (slot, group of 4 positions) per lane
  static_assert(P >= 64 && P <= 1024 && (P & (P - 1)) == 0, "P must be 64 .. 1024");

  extern __shared__ float4 exchange[];  // [kSlots][4][kWarps][32]
  __shared__ float warp_amax[kWarps];

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, q = lane & 3;
  const int64_t n = int64_t(M) * P;
  const int64_t row = blockIdx.x;
  const __nv_bfloat16* xr = x + row * n;
  __nv_bfloat16* yr = y + row * n;
  const int pos0 = warp * 64;  // first position of this warp in every chunk

  // Loads: chunk 16 kt + 2q + {0, 1, 8, 9}, positions pos0 + 8 g .. + 7 (one 16-byte vector).
  uint4 xin[kTiles][4];
#pragma unroll
  for (int kt = 0; kt < kTiles; ++kt) {
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int chunk = 16 * kt + 2 * q + (c & 1) + (c >> 1) * 8;
      xin[kt][c] = make_uint4(0, 0, 0, 0);
      if (chunk < M) {
        xin[kt][c] = __ldg(reinterpret_cast<const uint4*>(xr + int64_t(chunk) * P + pos0 + 8 * g));
      }
    }
  }

  // A = H_M^T: A[j][i] = H_M[i][j]; fragment rows j = 16 mt + g (+8), cols i = 16 kt + 2q (+1, +8, +9).
  uint32_t afrag[kTiles][kTiles][4];
#pragma unroll
  for (int mt = 0; mt < kTiles; ++mt) {
#pragma unroll
    for (int kt = 0; kt < kTiles; ++kt) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int j = 16 * mt + g + ((r & 1) ? 8 : 0);
        const int i = 16 * kt + 2 * q + ((r & 2) ? 8 : 0);
        afrag[mt][kt][r] = bf16_sign_bits(special_entry<M>(i, j)) |
                           (bf16_sign_bits(special_entry<M>(i + 1, j)) << 16);
      }
    }
  }

  // val[s][p]: chunk 16 (s / 2) + 8 (s % 2) + g, position pos0 + 16 q + p.
  float val[kSlots][16];
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
#pragma unroll
    for (int p = 0; p < 16; ++p) val[s][p] = 0.0f;
  }
#pragma unroll
  for (int v = 0; v < 8; ++v) {
#pragma unroll
    for (int mt = 0; mt < kTiles; ++mt) {
      float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
      for (int kt = 0; kt < kTiles; ++kt) {
        // B[k][n]: k = chunk 2q (+1) and 2q + 8 (+9) of tile kt, n = g: position pos0 + 8 g + v.
        const uint32_t* w0 = reinterpret_cast<const uint32_t*>(&xin[kt][0]);
        const uint32_t* w1 = reinterpret_cast<const uint32_t*>(&xin[kt][1]);
        const uint32_t* w8 = reinterpret_cast<const uint32_t*>(&xin[kt][2]);
        const uint32_t* w9 = reinterpret_cast<const uint32_t*>(&xin[kt][3]);
        const uint32_t sel = (v & 1) ? 0x7632u : 0x5410u;
        const uint32_t b0 = __byte_perm(w0[v / 2], w1[v / 2], sel);
        const uint32_t b1 = __byte_perm(w8[v / 2], w9[v / 2], sel);
        mma_bf16(d, afrag[mt][kt], b0, b1);
      }
      // D rows j = 16 mt + g (d0, d1) and + 8 (d2, d3); cols n = 2q (d0, d2) and 2q + 1 (d1, d3),
      // i.e. positions pos0 + 16 q + v and pos0 + 16 q + 8 + v.
      val[2 * mt][v] = d[0];
      val[2 * mt][8 + v] = d[1];
      val[2 * mt + 1][v] = d[2];
      val[2 * mt + 1][8 + v] = d[3];
    }
  }

  // Position bits 0..3: in registers.
#pragma unroll
  for (int s = 0; s < kSlots; ++s) butterflies<16>(val[s]);
  // Position bits 4..5: lane bits 0..1 (q).
#pragma unroll
  for (int bit = 1; bit <= 2; bit *= 2) {
    const bool upper = (q & bit) != 0;
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
#pragma unroll
      for (int p = 0; p < 16; ++p) {
        const float other = __shfl_xor_sync(kFull, val[s][p], bit);
        val[s][p] = upper ? other - val[s][p] : val[s][p] + other;
      }
    }
  }
  // Position bits 6.. : the warp index. Write, let each warp take whole (slot, group) pairs across
  // all warps, butterfly them in registers, write back, read the own values again.
  if constexpr (kWarps > 1) {
    auto at = [&](int s, int p4, int w) { return ((s * 4 + p4) * kWarps + w) * 32 + lane; };
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
#pragma unroll
      for (int p4 = 0; p4 < 4; ++p4) {
        exchange[at(s, p4, warp)] = make_float4(val[s][4 * p4], val[s][4 * p4 + 1],
                                                val[s][4 * p4 + 2], val[s][4 * p4 + 3]);
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < (kPairs + kWarps - 1) / kWarps; ++k) {
      const int pair = warp + k * kWarps;
      if (pair < kPairs) {
        const int s = pair / 4, p4 = pair % 4;
        float4 t[kWarps];
#pragma unroll
        for (int w = 0; w < kWarps; ++w) t[w] = exchange[at(s, p4, w)];
        butterflies<kWarps>(t);
#pragma unroll
        for (int w = 0; w < kWarps; ++w) exchange[at(s, p4, w)] = t[w];
      }
    }
    __syncthreads();
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
#pragma unroll
      for (int p4 = 0; p4 < 4; ++p4) {
        const float4 t = exchange[at(s, p4, warp)];
        val[s][4 * p4] = t.x;
        val[s][4 * p4 + 1] = t.y;
        val[s][4 * p4 + 2] = t.z;
        val[s][4 * p4 + 3] = t.w;
      }
    }
  }

  // Row amax over the real chunks.
  float amax = 0.0f;
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const int chunk = 16 * (s / 2) + 8 * (s % 2) + g;
    if (chunk < M) {
#pragma unroll
      for (int p = 0; p < 16; ++p) amax = fmaxf(amax, fabsf(val[s][p]));
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off /= 2) amax = fmaxf(amax, __shfl_xor_sync(kFull, amax, off));
  if (lane == 0) warp_amax[warp] = amax;
  __syncthreads();
  amax = warp_amax[0];
#pragma unroll
  for (int w = 1; w < kWarps; ++w) amax = fmaxf(amax, warp_amax[w]);

  const float amax_rotated = fmaxf(amax * inv_sqrt_n, kAmaxFloor);
  const float scale = amax_rotated / kFp8Max;
  const float mult = inv_sqrt_n / scale;
  if (threadIdx.x == 0) scales[row] = scale;

#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const int chunk = 16 * (s / 2) + 8 * (s % 2) + g;
    if (chunk < M) {
      uint32_t packed[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) packed[i] = quant_pair(val[s][2 * i] * mult, val[s][2 * i + 1] * mult);
      uint4* dst = reinterpret_cast<uint4*>(yr + int64_t(chunk) * P + pos0 + 16 * q);
      dst[0] = make_uint4(packed[0], packed[1], packed[2], packed[3]);
      dst[1] = make_uint4(packed[4], packed[5], packed[6], packed[7]);
    }
  }
}

// Rows of n = 2^a <= 256: n / 8 lanes per row, kRowsPerLane rows per lane group.
constexpr int kPow2Threads = 256;
constexpr int kRowsPerLane = 2;

template <int N>
__global__ void __launch_bounds__(kPow2Threads)
rotate_quant_pow2(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y,
                  float* __restrict__ scales, int64_t rows, float inv_sqrt_n) {
  constexpr int kLanes = N / 8;  // lanes per row, a power of two <= 32
  constexpr int kGroups = kPow2Threads / kLanes;
  static_assert(N >= 16 && N <= 256 && (N & (N - 1)) == 0, "N must be 16 .. 256");
  const int t = threadIdx.x % kLanes;
  const int group = threadIdx.x / kLanes;
  const int64_t first = (int64_t(blockIdx.x) * kGroups + group) * kRowsPerLane;

  uint4 in[kRowsPerLane];
#pragma unroll
  for (int r = 0; r < kRowsPerLane; ++r) {
    const int64_t row = first + r;
    in[r] = make_uint4(0, 0, 0, 0);
    if (row < rows) in[r] = __ldg(reinterpret_cast<const uint4*>(x + row * N) + t);
  }
#pragma unroll
  for (int r = 0; r < kRowsPerLane; ++r) {
    const int64_t row = first + r;
    float v[8];
    const uint32_t* w = reinterpret_cast<const uint32_t*>(&in[r]);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&w[i]));
      v[2 * i] = f.x;
      v[2 * i + 1] = f.y;
    }
    butterflies<8>(v);  // position bits 0..2
#pragma unroll
    for (int bit = 1; bit < kLanes; bit *= 2) {  // position bits 3.. : lane bits
      const bool upper = (t & bit) != 0;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const float other = __shfl_xor_sync(kFull, v[i], bit);
        v[i] = upper ? other - v[i] : v[i] + other;
      }
    }
    float amax = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i) amax = fmaxf(amax, fabsf(v[i]));
#pragma unroll
    for (int off = kLanes / 2; off > 0; off /= 2) {
      amax = fmaxf(amax, __shfl_xor_sync(kFull, amax, off));
    }
    const float scale = fmaxf(amax * inv_sqrt_n, kAmaxFloor) / kFp8Max;
    const float mult = inv_sqrt_n / scale;
    if (row < rows) {
      uint4 out;
      out.x = quant_pair(v[0] * mult, v[1] * mult);
      out.y = quant_pair(v[2] * mult, v[3] * mult);
      out.z = quant_pair(v[4] * mult, v[5] * mult);
      out.w = quant_pair(v[6] * mult, v[7] * mult);
      reinterpret_cast<uint4*>(y + row * N)[t] = out;
      if (t == 0) scales[row] = scale;
    }
  }
}

// configure: raise the kernel's dynamic shared-memory limit (once, in setup, outside any graph
// capture); otherwise launch.
template <int M, int P>
cudaError_t launch_special(bool configure, const __nv_bfloat16* x, __nv_bfloat16* y,
                           float* scales, int64_t rows, float inv_sqrt_n, cudaStream_t stream) {
  constexpr int smem = (P / 64 > 1) ? exchange_bytes<M, P>() : 0;
  if (configure) {
    return cudaFuncSetAttribute(rotate_quant_special<M, P>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  }
  rotate_quant_special<M, P><<<static_cast<unsigned>(rows), P / 2, smem, stream>>>(
      x, y, scales, inv_sqrt_n);
  return cudaGetLastError();
}

template <int M>
cudaError_t dispatch_p(bool configure, int p, const __nv_bfloat16* x, __nv_bfloat16* y,
                       float* scales, int64_t rows, float inv_sqrt_n, cudaStream_t stream,
                       bool* found) {
  *found = true;
  switch (p) {
    case 64: return launch_special<M, 64>(configure, x, y, scales, rows, inv_sqrt_n, stream);
    case 128: return launch_special<M, 128>(configure, x, y, scales, rows, inv_sqrt_n, stream);
    case 256: return launch_special<M, 256>(configure, x, y, scales, rows, inv_sqrt_n, stream);
    case 512: return launch_special<M, 512>(configure, x, y, scales, rows, inv_sqrt_n, stream);
    case 1024: return launch_special<M, 1024>(configure, x, y, scales, rows, inv_sqrt_n, stream);
    default: *found = false; return cudaSuccess;
  }
}

template <int N>
cudaError_t launch_pow2(const __nv_bfloat16* x, __nv_bfloat16* y, float* scales, int64_t rows,
                        float inv_sqrt_n, cudaStream_t stream) {
  constexpr int64_t rows_per_block = (kPow2Threads / (N / 8)) * kRowsPerLane;
  const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
  rotate_quant_pow2<N><<<static_cast<unsigned>(blocks), kPow2Threads, 0, stream>>>(
      x, y, scales, rows, inv_sqrt_n);
  return cudaGetLastError();
}

}  // namespace

int32_t d2k_native_abi_version(void) { return D2K_NATIVE_ABI_VERSION; }

namespace {

// Checks the call, then configures (setup) or launches (run) the kernel for its size.
int32_t dispatch(const d2k_native_call* call, bool configure, char* error, size_t error_size) {
  if (call->num_inputs != 1 || call->num_outputs != 2) {
    std::snprintf(error, error_size, "expected x and the outputs y, scales");
    return 1;
  }
  const DLTensor& x = call->inputs[0];
  if (x.ndim != 3 || x.dtype.code != kDLBfloat || x.dtype.bits != 16) {
    std::snprintf(error, error_size, "x must be a [T, heads, n] bf16 tensor");
    return 1;
  }
  const int64_t n = x.shape[2];
  const int64_t rows = x.shape[0] * x.shape[1];
  if (x.strides[2] != 1 || x.strides[1] != n || x.strides[0] != x.shape[1] * n) {
    std::snprintf(error, error_size, "x must be contiguous");
    return 1;
  }
  if (rows == 0 && !configure) return 0;
  const auto* xp = static_cast<const __nv_bfloat16*>(x.data);
  auto* yp = static_cast<__nv_bfloat16*>(call->outputs[0].data);
  auto* sp = static_cast<float*>(call->outputs[1].data);
  const auto stream = static_cast<cudaStream_t>(call->stream);
  const float inv_sqrt_n = static_cast<float>(1.0 / __builtin_sqrt(static_cast<double>(n)));

  const int64_t pow2 = n & (-n);
  const int64_t odd = n / pow2;
  cudaError_t e = cudaSuccess;
  bool found = false;
  if (odd == 1) {
    found = true;
    if (!configure) {
      switch (n) {
        case 128: e = launch_pow2<128>(xp, yp, sp, rows, inv_sqrt_n, stream); break;
        case 256: e = launch_pow2<256>(xp, yp, sp, rows, inv_sqrt_n, stream); break;
        default: found = false;
      }
    } else {
      found = (n == 128 || n == 256);
    }
  } else if (pow2 >= 4) {
    const int m = static_cast<int>(4 * odd);
    const int p = static_cast<int>(n / m);
    if (m == 12) e = dispatch_p<12>(configure, p, xp, yp, sp, rows, inv_sqrt_n, stream, &found);
    if (m == 20) e = dispatch_p<20>(configure, p, xp, yp, sp, rows, inv_sqrt_n, stream, &found);
    if (m == 28) e = dispatch_p<28>(configure, p, xp, yp, sp, rows, inv_sqrt_n, stream, &found);
  }
  if (!found) {
    std::snprintf(error, error_size, "n = %lld is not a supported size", static_cast<long long>(n));
    return 1;
  }
  if (e != cudaSuccess) {
    std::snprintf(error, error_size, "CUDA error: %s", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}

}  // namespace

int32_t d2k_native_setup(const d2k_native_call* call, uint64_t* workspace_bytes, char* error,
                         size_t error_size) {
  *workspace_bytes = 0;
  return dispatch(call, true, error, error_size);
}

int32_t d2k_native_run(const d2k_native_call* call, char* error, size_t error_size) {
  return dispatch(call, false, error, error_size);
}
