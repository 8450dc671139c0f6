// The committed expert (tasks/topk_topp_sampling/expert/solution.cu at 59caa24) with phase
// counters for its profiling build, otherwise unchanged: docs/results.md, 2026-12-01. Timed by
//   python3 tasks/topk_topp_sampling/expert/check.py --impl expert --source THIS_FILE --phases
//
// Expert in CUDA C++: sort-free top-k/top-p sampling by pivot rejection, one thread-block
// cluster per row, the row held in the cluster's shared memory. Written against d2k's native
// ABI (include/d2k/native_abi.h, docs/native-abi.md).
//
// Per row: s = log2(e) / temperature, x_j = logits[j] * s, m = max_j x_j, w_j = 2^(x_j - m) (the
// largest weight is exactly 1). A token of weight v is kept when count(w > v) < k and
// mass(w > v) < p * Z, Z the sum of all weights; the kept set is {w >= theta} for one theta.
//
// A cluster of 8 CTAs owns a row; CTA r loads slice r (about V / 8 logits) into shared memory
// once, so the row is read from memory exactly once, and every later step works on shared
// memory. After each step the CTAs exchange a few scalars through a mailbox in each CTA's
// shared memory (read by the others through distributed shared memory after a cluster
// barrier); in every CTA, warp 0 reads all mailboxes (lane r the mailbox of CTA r) and takes
// the same decisions with the same warp operations, so the CTAs never disagree and leave the
// loop together.
//
//   step 0  slice maximum and sum of 2^(x - slice max), and one token drawn from the slice in
//           proportion to its weight. After the barrier: m, Z, the first candidate (a slice
//           chosen in proportion to its rescaled mass, then that slice's token): an exact draw
//           from the whole row. Rows without limits accept it; greedy rows (top_k = 1) with a
//           single maximum take the maximum.
//   round   candidate weight p0 and p1, the geometric midpoint of p0 and the best known kept
//           weight `high`. Each slice counts and sums strictly above both and draws one token
//           above each. After the barrier:
//               candidate kept -> it is the sample;
//               p1 kept        -> theta in (p0, p1]: high = p1, next = the draw above p0;
//               otherwise      -> theta above p1:                next = the draw above p1.
// Every proposal is the exact distribution restricted to a superset of the kept set (all tokens
// above a pivot known not to be kept), drawn with fresh randomness, and is accepted exactly when
// kept, so the sample follows the kept distribution. The candidate weight rises every round and
// the bracket at least halves in log space, so the rounds are bounded.
//
// Draws are inverse CDFs, each "the first entry whose running mass exceeds the target": a
// slice by the slices' masses, then inside it a warp by the warps' masses, a lane by the lanes'
// masses (warp scans), and an element in the lane's own order. A candidate's weight is always
// the bits its owner compared with, so "strictly above the candidate" never counts the
// candidate.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <d2k/native_abi.h>

#ifdef D2K_PHASE_TIMES
// Profiling build only: cycles of each phase of a row, summed by thread 0 of CTA 0 of each
// cluster, with the number of times each phase ended 16 places further.
__device__ unsigned long long d2k_phase_cycles[32];
#define D2K_PHASE_START() long long phase_mark = clock64()
#define D2K_PHASE(i)                                                                      \
  do {                                                                                    \
    if (rank == 0 && tid == 0) {                                                          \
      const long long now = clock64();                                                    \
      atomicAdd(&d2k_phase_cycles[i], static_cast<unsigned long long>(now - phase_mark)); \
      atomicAdd(&d2k_phase_cycles[16 + (i)], 1ull);                                       \
      phase_mark = now;                                                                   \
    }                                                                                     \
  } while (0)
#else
#define D2K_PHASE_START() \
  do {                    \
  } while (0)
#define D2K_PHASE(i) D2K_PHASE_START()
#endif

namespace {

namespace cg = cooperative_groups;

constexpr int kSlices = 8;  // CTAs per row: the largest portable cluster
constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
constexpr int kMaxRounds = 96;  // never reached: the bracket reaches adjacent floats long before
constexpr float kLog2e = 1.4426950408889634f;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kMaxDynamicShared = 227 * 1024 - 4096;  // leave room for the static arrays

// What one CTA tells the others after a step (step 0 and rounds use the fields differently).
struct Mailbox {
  float f[4];
  int i[4];
};

// Decisions every CTA of the row holds identically.
struct RowState {
  float m, limit_mass, p0, p1, high;
  int cand, top_token, k_limit, done, rounds, no_p;
};

// One CTA's draw at one level.
struct Draw {
  int index;  // token id in the row, -1 when the slice has no eligible token
  float weight;
  float mass;
  int count;
};

struct Scratch {
  float warp_mass[2][kWarps];
  int warp_count[2][kWarps];
  int chosen_warp[2];
  float warp_target[2];
  float total_mass[2];
  int total_count[2];
  int pick_index[2];
  float pick_weight[2];
  float reduce_f;
  int reduce_i[2];
};

__device__ __forceinline__ float4 uniforms(uint64_t seed, uint32_t row, uint32_t step, uint32_t who) {
  // Counter (row, step, who): unique per use; 24-bit uniforms in [0, 1).
  const uint4 bits = curand_Philox4x32_10(make_uint4(row, step, who, 0x243F6A88u),
                                          make_uint2(static_cast<uint32_t>(seed),
                                                     static_cast<uint32_t>(seed >> 32)));
  constexpr float kUnit = 1.0f / 16777216.0f;
  return make_float4((bits.x >> 8) * kUnit, (bits.y >> 8) * kUnit, (bits.z >> 8) * kUnit,
                     (bits.w >> 8) * kUnit);
}

__device__ __forceinline__ float warp_inclusive_sum(float v, int lane) {
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const float up = __shfl_up_sync(kFull, v, offset);
    if (lane >= offset) v += up;
  }
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(kFull, v, offset));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(kFull, v, offset);
  return v;
}

// The first lane whose running mass exceeds the target, else the last lane with mass.
__device__ __forceinline__ int first_crossing(bool has_mass, float running, float target) {
  const unsigned hits = __ballot_sync(kFull, has_mass && running > target);
  const unsigned positive = __ballot_sync(kFull, has_mass);
  if (hits != 0) return __ffs(hits) - 1;
  return positive != 0 ? 31 - __clz(positive) : -1;
}

__device__ float block_max(float v, Scratch& s) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_max(v);
  if (lane == 0) s.warp_mass[0][warp] = v;
  __syncthreads();
  if (warp == 0) {
    const float t = warp_max(lane < kWarps ? s.warp_mass[0][lane] : -INFINITY);
    if (lane == 0) s.reduce_f = t;
  }
  __syncthreads();
  return s.reduce_f;
}

// (sum of a, min of b) over the block.
__device__ int2 block_sum_min(int a, int b, Scratch& s) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  a = __reduce_add_sync(kFull, a);
  b = __reduce_min_sync(kFull, b);
  if (lane == 0) {
    s.warp_count[0][warp] = a;
    s.warp_count[1][warp] = b;
  }
  __syncthreads();
  if (warp == 0) {
    const int sum = __reduce_add_sync(kFull, lane < kWarps ? s.warp_count[0][lane] : 0);
    const int least = __reduce_min_sync(kFull, lane < kWarps ? s.warp_count[1][lane] : INT_MAX);
    if (lane == 0) {
      s.reduce_i[0] = sum;
      s.reduce_i[1] = least;
    }
  }
  __syncthreads();
  return make_int2(s.reduce_i[0], s.reduce_i[1]);
}

// Draws one token per level from this CTA's slice. mass[L] and count[L] are the thread's sums
// over its elements (index threadIdx.x + k * kThreads, in increasing k) of weight(v) for the
// elements where eligible(L, weight(v)) holds; the lane that wins rescans its elements the same
// way. All threads return the same draws.
template <int Levels, class Weight, class Eligible>
__device__ void draw_levels(const float (&mass)[Levels], const int (&count)[Levels],
                            const float (&u)[Levels], int begin, int len, const float* values,
                            Weight weight, Eligible eligible, Scratch& s, Draw (&out)[Levels]) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float running[Levels];
#pragma unroll
  for (int level = 0; level < Levels; ++level) {
    running[level] = warp_inclusive_sum(mass[level], lane);
    const int warp_count = __reduce_add_sync(kFull, count[level]);
    if (lane == 31) {
      s.warp_mass[level][warp] = running[level];
      s.warp_count[level][warp] = warp_count;
    }
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int level = 0; level < Levels; ++level) {
      const float warp_mass = lane < kWarps ? s.warp_mass[level][lane] : 0.0f;
      const float warps_running = warp_inclusive_sum(warp_mass, lane);
      const float total = __shfl_sync(kFull, warps_running, kWarps - 1);
      const int total_count = __reduce_add_sync(kFull, lane < kWarps ? s.warp_count[level][lane] : 0);
      const float target = u[level] * total;
      const int chosen = first_crossing(lane < kWarps && warp_mass > 0.0f, warps_running, target);
      const float before = __shfl_sync(kFull, warps_running, chosen > 0 ? chosen - 1 : 0);
      if (lane == 0) {
        s.chosen_warp[level] = chosen;
        s.warp_target[level] = target - (chosen > 0 ? before : 0.0f);
        s.total_mass[level] = total;
        s.total_count[level] = total_count;
        s.pick_index[level] = -1;
        s.pick_weight[level] = 0.0f;
      }
    }
  }
  __syncthreads();
#pragma unroll
  for (int level = 0; level < Levels; ++level) {
    if (warp != s.chosen_warp[level]) continue;
    const float target = s.warp_target[level];
    float before = __shfl_up_sync(kFull, running[level], 1);
    if (lane == 0) before = 0.0f;
    const int chosen = first_crossing(mass[level] > 0.0f, running[level], target);
    if (lane != chosen) continue;
    const float rest = target - before;
    float sum = 0.0f, pick_w = 0.0f, last_w = 0.0f;
    int pick = -1, last = -1;
    for (int i = threadIdx.x; i < len; i += kThreads) {
      const float w = weight(values[i]);
      if (w > 0.0f && eligible(level, w)) {
        sum += w;
        last = i;
        last_w = w;
        if (pick < 0 && sum > rest) {
          pick = i;
          pick_w = w;
        }
      }
    }
    if (pick < 0) {
      pick = last;
      pick_w = last_w;
    }
    s.pick_index[level] = pick < 0 ? -1 : begin + pick;
    s.pick_weight[level] = pick_w;
  }
  __syncthreads();
#pragma unroll
  for (int level = 0; level < Levels; ++level) {
    out[level] = Draw{s.pick_index[level], s.pick_weight[level], s.total_mass[level],
                      s.total_count[level]};
  }
}

__global__ void __cluster_dims__(kSlices, 1, 1) __launch_bounds__(kThreads, 2)
    cluster_row_sample_kernel(const float* __restrict__ logits, int64_t row_stride,
                              const int* __restrict__ top_k, const float* __restrict__ top_p,
                              const float* __restrict__ temperature, int64_t* __restrict__ samples,
                              int vocab, int slice_len, uint64_t seed) {
  extern __shared__ float values[];  // the slice: x * s, then the weights w
  __shared__ Scratch s;
  __shared__ Mailbox box[2];
  __shared__ RowState st;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int row = blockIdx.x / kSlices;
  const int tid = threadIdx.x;
  const int begin = rank * slice_len;
  const int len = max(0, min(slice_len, vocab - begin));
  const float* src = logits + row * row_stride + begin;
  const float scale = kLog2e / temperature[row];

  D2K_PHASE_START();
  // Read the slice once, scaled; 16-byte loads when the slice is aligned.
  float local_max = -INFINITY;
  int head = 0;
  if ((reinterpret_cast<uintptr_t>(src) & 15) == 0) {
    const int quads = len / 4;
    const float4* src4 = reinterpret_cast<const float4*>(src);
#pragma unroll 8
    for (int q = tid; q < quads; q += kThreads) {
      const float4 v = __ldg(src4 + q);
      const float a = v.x * scale, b = v.y * scale, c = v.z * scale, d = v.w * scale;
      reinterpret_cast<float4*>(values)[q] = make_float4(a, b, c, d);
      local_max = fmaxf(local_max, fmaxf(fmaxf(a, b), fmaxf(c, d)));
    }
    head = 4 * quads;
  }
  for (int i = head + tid; i < len; i += kThreads) {
    const float x = __ldg(src + i) * scale;
    values[i] = x;
    local_max = fmaxf(local_max, x);
  }
  const float slice_max = block_max(local_max, s);  // its barrier also publishes `values`

  D2K_PHASE(0);
  // Step 0: the slice's maxima, its mass and a draw from it.
  int n_top = 0, first_top = INT_MAX;
  float mass0[1] = {0.0f};
  const int count0[1] = {0};
  auto slice_weight = [slice_max](float x) { return x == -INFINITY ? 0.0f : exp2f(x - slice_max); };
  for (int i = tid; i < len; i += kThreads) {
    const float x = values[i];
    if (x == slice_max) {
      ++n_top;
      first_top = min(first_top, i);
    }
    const float e = slice_weight(x);
    if (e > 0.0f) mass0[0] += e;
  }
  const int2 tops = block_sum_min(n_top, first_top, s);
  Draw first[1];
  const float u0[1] = {uniforms(seed, row, 0, rank).x};
  draw_levels<1>(mass0, count0, u0, begin, len, values, slice_weight,
                 [](int, float) { return true; }, s, first);
  if (tid == 0) {
    box[0].f[0] = slice_max;
    box[0].f[1] = first[0].mass;
    box[0].f[2] = first[0].index >= 0 ? values[first[0].index - begin] : 0.0f;
    box[0].i[0] = first[0].index;
    box[0].i[1] = tops.y == INT_MAX ? INT_MAX : begin + tops.y;
    box[0].i[2] = tops.x;
  }
  D2K_PHASE(1);
  cluster.sync();
  D2K_PHASE(2);

  // Warp 0 decides, lane r holding slice r's mailbox: one round of remote reads in parallel, and
  // the same warp operations in every CTA, so every CTA reaches the same state.
  if (tid < 32) {
    const int lane = tid;
    const bool member = lane < kSlices;
    Mailbox b{};
    if (member) b = *cluster.map_shared_rank(&box[0], lane);
    const float m = warp_max(member ? b.f[0] : -INFINITY);
    const float mass = member && b.f[1] > 0.0f ? b.f[1] * exp2f(b.f[0] - m) : 0.0f;
    const float running = warp_inclusive_sum(mass, lane);
    const float z = __shfl_sync(kFull, running, kSlices - 1);
    const int chosen = first_crossing(mass > 0.0f, running, uniforms(seed, row, 0, kSlices).x * z);
    const int cand = __shfl_sync(kFull, b.i[0], chosen < 0 ? 0 : chosen);
    const float cand_x = __shfl_sync(kFull, b.f[2], chosen < 0 ? 0 : chosen);
    const bool holds_max = member && b.f[0] == m;
    const int top_token = __reduce_min_sync(kFull, holds_max ? b.i[1] : INT_MAX);
    const int tops_total = __reduce_add_sync(kFull, holds_max ? b.i[2] : 0);
    if (lane == 0) {
      const int k = top_k[row];
      const float p = top_p[row];
      st.m = m;
      st.k_limit = (k <= 0 || k >= vocab) ? vocab + 1 : k;
      st.no_p = p >= 1.0f;
      st.limit_mass = p * z;
      st.cand = chosen >= 0 ? cand : top_token;
      st.p0 = chosen >= 0 ? exp2f(cand_x - m) : 1.0f;
      st.high = 1.0f;
      st.top_token = top_token;
      const bool greedy = st.k_limit == 1 && tops_total == 1;
      if (greedy) st.cand = top_token;
      st.done = (greedy || (st.k_limit > vocab && st.no_p)) ? 1 : 0;
      st.rounds = 0;
      st.p1 = st.p0 > 0.0f ? fminf(fmaxf(sqrtf(st.p0 * st.high), st.p0), st.high) : 0.5f;
    }
  }
  __syncthreads();

  D2K_PHASE(3);
  // The weights, with the same formula that gave the candidate's weight.
  const float m = st.m;
  for (int i = tid; i < len; i += kThreads) {
    const float x = values[i];
    values[i] = x == -INFINITY ? 0.0f : exp2f(x - m);
  }
  __syncthreads();

  auto as_is = [](float w) { return w; };
  D2K_PHASE(4);
  while (st.done == 0 && st.rounds < kMaxRounds) {
    const int round = st.rounds + 1;
    const float p0 = st.p0, p1 = st.p1;
    float mass[2] = {0.0f, 0.0f};
    int count[2] = {0, 0};
    for (int i = tid; i < len; i += kThreads) {
      const float w = values[i];
      if (w > p0) {
        mass[0] += w;
        ++count[0];
      }
      if (w > p1) {
        mass[1] += w;
        ++count[1];
      }
    }
    const float4 ur = uniforms(seed, row, round, rank);
    const float u[2] = {ur.x, ur.y};
    Draw draws[2];
    draw_levels<2>(mass, count, u, begin, len, values, as_is,
                   [p0, p1](int level, float w) { return w > (level == 0 ? p0 : p1); }, s, draws);
    const int parity = round & 1;
    if (tid == 0) {
      box[parity].f[0] = draws[0].mass;
      box[parity].f[1] = draws[0].weight;
      box[parity].f[2] = draws[1].mass;
      box[parity].f[3] = draws[1].weight;
      box[parity].i[0] = draws[0].count;
      box[parity].i[1] = draws[0].index;
      box[parity].i[2] = draws[1].count;
      box[parity].i[3] = draws[1].index;
    }
    D2K_PHASE(5);
    cluster.sync();
    D2K_PHASE(6);
    if (tid < 32) {
      const int lane = tid;
      const bool member = lane < kSlices;
      Mailbox b{};
      if (member) b = *cluster.map_shared_rank(&box[parity], lane);
      const int count0 = __reduce_add_sync(kFull, member ? b.i[0] : 0);
      const int count1 = __reduce_add_sync(kFull, member ? b.i[2] : 0);
      const float total0 = warp_sum(member ? b.f[0] : 0.0f);
      const float total1 = warp_sum(member ? b.f[2] : 0.0f);
      const bool keep0 = count0 < st.k_limit && (st.no_p || total0 < st.limit_mass);
      const bool keep1 = count1 < st.k_limit && (st.no_p || total1 < st.limit_mass);
      // theta in (p0, p1] draws above p0, otherwise above p1.
      const int level = keep1 ? 0 : 1;
      const float mass = member ? b.f[2 * level] : 0.0f;
      const float running = warp_inclusive_sum(mass, lane);
      const float target = uniforms(seed, row, round, kSlices).x * __shfl_sync(kFull, running, kSlices - 1);
      const int chosen = first_crossing(mass > 0.0f, running, target);
      const int next = __shfl_sync(kFull, b.i[2 * level + 1], chosen < 0 ? 0 : chosen);
      const float next_w = __shfl_sync(kFull, b.f[2 * level + 1], chosen < 0 ? 0 : chosen);
      if (lane == 0) {
        st.rounds = round;
        if (keep0) {
          st.done = 1;
        } else {
          if (keep1) st.high = p1;
          if (chosen >= 0) {
            st.cand = next;
            st.p0 = next_w;
          }
          st.p1 = st.p0 > 0.0f ? fminf(fmaxf(sqrtf(st.p0 * st.high), st.p0), st.high)
                               : 0.5f * st.high;
        }
      }
    }
    __syncthreads();
    D2K_PHASE(7);
  }

  // The round cap only guards against non-finite input; the maximum is always allowed.
  D2K_PHASE(8);
  if (rank == 0 && tid == 0) samples[row] = st.done ? st.cand : st.top_token;
  cluster.sync();  // no CTA leaves while another may still read its mailbox
}

bool is_dtype(const DLTensor& t, uint8_t code, uint8_t bits) {
  return t.dtype.code == code && t.dtype.bits == bits && t.dtype.lanes == 1;
}

bool is_vector(const DLTensor& t, int64_t n) {
  return t.ndim == 1 && t.shape[0] == n && t.strides[0] == 1;
}

}  // namespace

int32_t d2k_native_abi_version(void) { return D2K_NATIVE_ABI_VERSION; }

#ifdef D2K_PHASE_TIMES
// Profiling build only: the phases the counters stand for, in counter order.
extern "C" D2K_NATIVE_EXPORT const char* d2k_sampling_phase_names(void) {
  return "load + slice max;step 0 slice stats and draw;step 0 barrier;step 0 decision;weights;"
         "round pass and draws;round barrier;round decision;the last round's exit";
}

// Profiling build only: copies the 32 phase counters out and clears them.
extern "C" D2K_NATIVE_EXPORT int32_t d2k_sampling_phase_cycles(unsigned long long* out) {
  unsigned long long zero[32] = {};
  if (cudaDeviceSynchronize() != cudaSuccess || cudaMemcpyFromSymbol(out, d2k_phase_cycles, sizeof(zero)) != cudaSuccess ||
      cudaMemcpyToSymbol(d2k_phase_cycles, zero, sizeof(zero)) != cudaSuccess)
    return 1;
  return 0;
}
#endif

int32_t d2k_native_run(const d2k_native_call* call, char* error, size_t error_size) {
  if (call->num_inputs != 4 || call->num_outputs != 1) {
    std::snprintf(error, error_size, "expected logits, top_k, top_p, temperature and one output");
    return 1;
  }
  const DLTensor& logits = call->inputs[0];
  if (logits.ndim != 2 || !is_dtype(logits, kDLFloat, 32) || logits.strides[1] != 1) {
    std::snprintf(error, error_size, "logits must be float32 [batch, vocab] with contiguous rows");
    return 1;
  }
  const int64_t batch = logits.shape[0], vocab = logits.shape[1];
  const DLTensor &top_k = call->inputs[1], &top_p = call->inputs[2], &temperature = call->inputs[3];
  const DLTensor& samples = call->outputs[0];
  if (!is_dtype(top_k, kDLInt, 32) || !is_vector(top_k, batch) || !is_dtype(top_p, kDLFloat, 32) ||
      !is_vector(top_p, batch) || !is_dtype(temperature, kDLFloat, 32) ||
      !is_vector(temperature, batch) || !is_dtype(samples, kDLInt, 64) || !is_vector(samples, batch)) {
    std::snprintf(error, error_size,
                  "top_k (int32), top_p, temperature (float32) and the samples (int64) must be "
                  "contiguous vectors of batch %lld",
                  static_cast<long long>(batch));
    return 1;
  }
  const d2k_native_param* seed = d2k_native_find_param(call, "seed");
  if (seed == nullptr || seed->kind != D2K_NATIVE_INT64) {
    std::snprintf(error, error_size, "seed must be an integer");
    return 1;
  }
  if (batch == 0) return 0;
  const int64_t slice_len = ((vocab + kSlices - 1) / kSlices + 3) / 4 * 4;
  const int64_t shared_bytes = slice_len * static_cast<int64_t>(sizeof(float));
  if (vocab <= 0 || shared_bytes > kMaxDynamicShared || batch * kSlices > INT32_MAX) {
    std::snprintf(error, error_size, "vocab %lld does not fit %d slices of shared memory",
                  static_cast<long long>(vocab), kSlices);
    return 1;
  }
  cudaError_t status = cudaFuncSetAttribute(cluster_row_sample_kernel,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(shared_bytes));
  if (status == cudaSuccess) {
    const auto stream = static_cast<cudaStream_t>(call->stream);
    cluster_row_sample_kernel<<<static_cast<unsigned>(batch * kSlices), kThreads, shared_bytes, stream>>>(
        static_cast<const float*>(logits.data), logits.strides[0],
        static_cast<const int*>(top_k.data), static_cast<const float*>(top_p.data),
        static_cast<const float*>(temperature.data), static_cast<int64_t*>(samples.data),
        static_cast<int>(vocab), static_cast<int>(slice_len),
        static_cast<uint64_t>(seed->int64_value));
    status = cudaGetLastError();
  }
  if (status != cudaSuccess) {
    std::snprintf(error, error_size, "CUDA error: %s", cudaGetErrorString(status));
    return 1;
  }
  return 0;
}
