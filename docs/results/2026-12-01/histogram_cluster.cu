// Archived design experiment, not the task's expert (docs/results.md, 2026-12-01, "Three
// sampling designs"). Checked and timed in the expert's place, from the repository root, by
//   python3 tasks/topk_topp_sampling/expert/check.py --impl expert --source THIS_FILE \
//       --full --time --phases --batch-scan 1,64,256
// Measured as check2.txt (its first version, with 64-bit shared atomics, as check1.txt).
//
// A sampler in CUDA C++: exact top-k/top-p sampling without a sort, by locating the keep threshold
// with a log-scale histogram. Written against d2k's native ABI (include/d2k/native_abi.h).
//
// Per row, with y_j = logits[j] * log2(e) / temperature and m = max_j y_j, token j has weight
// w_j = 2^(y_j - m). A value v is kept when count(y > v) < k and mass(y > v) < p * Z (Z the sum
// of all weights), so the kept set is {y >= theta} for one threshold theta.
//
// Layout. A cluster of 16 CTAs owns a row; CTA r holds slice r (V / 16 logits) in its threads'
// registers, so the row is read from memory once. Clusters are persistent: while a row is
// decided, the next row's slices stream into shared memory by cp.async (each thread copies the
// chunks it will read itself, so no barrier guards the buffer), which hides the row's latency
// behind the next row's load.
//
// Per row, two cluster barriers in the common case:
//   histogram  Each CTA bins its tokens within 16 octaves of its own maximum on a grid shared by
//              every CTA (bin = floor(16 y), 1/16 octave wide), counting tokens and summing
//              weights with 32-bit shared atomics (a weight in 16-bit fixed point relative to its
//              bin's upper edge, so every sum is exact to that grain and independent of the order
//              of the atomics), and publishes the running totals from the top bin down. Barrier. Every CTA merges the 8 tables the same way
//              (16-bin groups first, then the 16 bins of the hit group) and finds the first bin
//              where the tokens at or above it reach a limit: every token above that bin is kept,
//              every token below it dropped. The rare bin with more than kMaxCandidates tokens is
//              split again by the bits of y (a radix step per barrier) until it fits or holds one
//              value.
//   candidates Each CTA publishes the tokens of that bin. Barrier. Every CTA gathers them and
//              decides each exactly (count and mass strictly above it), then draws: a (CTA, part)
//              by mass, the part being the CTA's tokens above the bin or its kept candidates;
//              inside the CTA's tokens above the bin, a 64-bit fixed-point inverse CDF over the
//              threads, then over one thread's tokens.
// Every decision is taken from data all CTAs hold identically, with the same operations in the
// same order, so the CTAs take the same branches and meet at the same barriers. A barrier's
// published data is read only between it and the next barrier; the histogram tables alternate
// between two buffers, so a CTA can publish the next level while others still read this one.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <d2k/native_abi.h>

#ifdef D2K_PHASE_TIMES
// Profiling build only (expert/check.py --phases): cycles spent in each phase of a row, summed by
// thread 0 of CTA 0 of every cluster (of the drawing CTA for the last phase), with the number
// of times each phase ended in the counter 16 places further.
__device__ unsigned long long d2k_phase_cycles[32];
#define D2K_PHASE_START() long long phase_mark = clock64()
#define D2K_PHASE_RESTART() phase_mark = clock64()
#define D2K_PHASE(i, who)                                                                 \
  do {                                                                                    \
    if ((who) && threadIdx.x == 0) {                                                      \
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
#define D2K_PHASE_RESTART() D2K_PHASE_START()
#define D2K_PHASE(i, who) D2K_PHASE_START()
#endif

namespace {

namespace cg = cooperative_groups;

constexpr int kRanks = 16;  // CTAs per row: a non-portable cluster (Hopper allows 16)
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kBins = 256;          // bins per histogram level
constexpr int kGroupBins = 16;      // the merge looks at groups of 16 bins first
constexpr int kGroups = kBins / kGroupBins;
constexpr float kBinsPerOctave = 16.0f;
constexpr int kRadixBits = 8;       // kBins = 2^8 sub-bins per refinement
constexpr int kMaxCandidates = 256;
constexpr float kLog2e = 1.4426950408889634f;
constexpr unsigned kFull = 0xffffffffu;
// A binned token adds its weight relative to its bin's upper edge (in (0, 1]) in units of
// 2^-16, rounded: a slice's 10240 tokens sum below 2^32.
constexpr float kMassUnit = 65536.0f;
constexpr float kMassUnitInverse = 1.0f / 65536.0f;
// Bin arithmetic (floor(16 y), anchors, edges) is exact while |16 y| stays below 2^23; rows
// beyond that start from the radix split of the whole float range instead.
constexpr float kExactAnchor = 8388608.0f;
constexpr float kDrawFixedOffset = 40.0f;  // the draw's weights in units of 2^-40
static_assert(kBins == kThreads, "thread t owns bin t when a histogram is published");
static_assert(kMaxCandidates <= kThreads, "thread t decides candidate t");

struct Prefix {  // running totals of one bin, from the top bin down to it
  float mass;
  unsigned count;
};

struct Mail {  // what a CTA publishes with its first histogram
  float m;       // slice maximum of y, -inf when the slice has no token
  float anchor;  // floor(16 m)
  float z;       // sum of 2^(y - m) over the slice
  unsigned count;
};

struct Candidate {
  float y;
  int index;
};

// One level's outcome, and the search so far; identical in every CTA of the cluster.
struct Search {
  unsigned count_above;  // tokens known to be kept (strictly above the interval)
  float mass_above;
  float rank_above[kRanks];  // their mass per CTA
  float lo, hi;              // the undecided interval [lo, hi); every y >= hi is kept
  unsigned inside;           // tokens in it
  int single_value;          // the interval holds one value
};

// What a level's merge found, written by the threads that saw it.
struct LevelHit {
  int bin;  // the first bin that reaches a limit; kBins when none does
  unsigned count[2];  // cumulative count at the bin before the hit and at the hit
  float mass[2];
  float rank_mass[2][kRanks];
};

template <int N>
struct Shared {
  float4 slice[kThreads * N / 4];        // the next row's slice, landing by cp.async
  unsigned bin_count[kBins];             // this level's histogram, by atomics
  unsigned bin_mass[kBins];              // fixed point, relative to each bin's upper edge
  Prefix published[2][kBins];            // running totals, by level parity; read remotely
  Mail mail;                             // read remotely
  Candidate candidates[kMaxCandidates];  // read remotely
  unsigned n_candidates;                 // read remotely
  // Local: the gathered candidates and their decisions.
  float cand_y[kMaxCandidates];
  float cand_w[kMaxCandidates];
  int cand_index[kMaxCandidates];
  int cand_rank[kMaxCandidates];
  int cand_kept[kMaxCandidates];
  // Local: the row's merged state.
  float m, limit_mass, anchor;
  float shift[kRanks], scale[kRanks], rank_z[kRanks];
  int valid[kRanks], exact;
  unsigned total;
  int k_limit, has_p;
  Search search;
  LevelHit hit;
  unsigned group_count[kGroups];
  float group_mass[kGroups];
  int group_hit[kGroups];
  unsigned fine_count[kGroupBins];
  float fine_mass[kGroupBins];
  int fine_hit[kGroupBins];
  float group_rank_mass[kGroups][kRanks];
  float fine_rank_mass[kGroupBins][kRanks];
  unsigned offsets[kRanks + 1];  // where each rank's candidates start in the gathered list
  // Local: block reductions and the draw.
  float red_f[kWarps];
  unsigned red_u[kWarps];
  unsigned long long red_ull[kWarps];
  int red_i[kWarps];
  int draw_rank, draw_kind, draw_token;
};

__device__ __forceinline__ float ex2(float v) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}

// Order-preserving map of non-NaN floats to unsigned integers, and back.
__device__ __forceinline__ unsigned float_key(float y) {
  const unsigned b = __float_as_uint(y);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
__device__ __forceinline__ float key_float(unsigned k) {
  return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

__device__ __forceinline__ uint4 philox(uint64_t seed, uint32_t row, uint32_t use) {
  return curand_Philox4x32_10(make_uint4(row, use, 0x243F6A88u, 0x85A308D3u),
                              make_uint2(static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)));
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(kFull, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o);
  return v;
}

template <class S>
__device__ float block_max(float v, S& sh) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_max(v);
  if (lane == 0) sh.red_f[warp] = v;
  __syncthreads();
  float r = sh.red_f[0];
#pragma unroll
  for (int w = 1; w < kWarps; ++w) r = fmaxf(r, sh.red_f[w]);
  __syncthreads();  // red_f is reused by the next reduction
  return r;
}

// Exclusive prefix over the block in thread order, and the total.
template <class S>
__device__ unsigned block_exclusive_scan(unsigned v, unsigned& total, S& sh) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned incl = v;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const unsigned up = __shfl_up_sync(kFull, incl, o);
    if (lane >= o) incl += up;
  }
  if (lane == 31) sh.red_u[warp] = incl;
  __syncthreads();
  unsigned before = 0;
  total = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    if (w < warp) before += sh.red_u[w];
    total += sh.red_u[w];
  }
  __syncthreads();
  return before + incl - v;
}

template <class S>
__device__ unsigned long long block_exclusive_scan64(unsigned long long v, unsigned long long& total,
                                                     S& sh) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned long long incl = v;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const unsigned long long up = __shfl_up_sync(kFull, incl, o);
    if (lane >= o) incl += up;
  }
  if (lane == 31) sh.red_ull[warp] = incl;
  __syncthreads();
  unsigned long long before = 0;
  total = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    if (w < warp) before += sh.red_ull[w];
    total += sh.red_ull[w];
  }
  __syncthreads();
  return before + incl - v;
}

// Inclusive prefix over the block in thread order; the same operations in every CTA.
template <class S>
__device__ float block_inclusive_scan(float v, S& sh) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const float up = __shfl_up_sync(kFull, v, o);
    if (lane >= o) v += up;
  }
  if (lane == 31) sh.red_f[warp] = v;
  __syncthreads();
  float before = 0.0f;
#pragma unroll
  for (int w = 0; w < kWarps; ++w)
    if (w < warp) before += sh.red_f[w];
  __syncthreads();
  return before + v;
}

// Turns this CTA's histogram (bin 0 the top) into running totals from the top, published in
// buffer `parity`, and clears it for the next level. Thread t owns bin t; `unit` is the weight
// one fixed-point unit of its bin stands for.
template <class S>
__device__ void publish_histogram(S& sh, int parity, float unit) {
  const int t = threadIdx.x;
  const unsigned count = sh.bin_count[t];
  const float mass = count > 0 ? static_cast<float>(sh.bin_mass[t]) * unit : 0.0f;
  sh.bin_count[t] = 0;
  sh.bin_mass[t] = 0;
  unsigned total_count;
  const unsigned count_before = block_exclusive_scan(count, total_count, sh);
  const float mass_through = block_inclusive_scan(mass, sh);
  sh.published[parity][t] = Prefix{mass_through, count_before + count};
}

// Reads, for bin `bin` of the merged table, rank r's running totals: each thread handles one
// (bin, rank) pair, kRanks consecutive lanes one bin. Returns the bin's merged totals in all
// eight lanes; `rank_count`/`rank_mass` are this lane's rank's own.
template <class S>
__device__ void merge_bin(cg::cluster_group& cluster, S& sh, int parity, int bin, int r,
                          unsigned& count, float& mass, float& rank_mass) {
  unsigned rank_count = 0;
  rank_mass = 0.0f;
  const int local = bin - static_cast<int>(sh.shift[r]);
  if (sh.valid[r] && local >= 0) {
    const Prefix* remote = cluster.map_shared_rank(&sh.published[parity][0], r);
    const Prefix p = remote[local];
    rank_count = p.count;
    rank_mass = p.mass * sh.scale[r];
  }
  count = rank_count;
  mass = rank_mass;
#pragma unroll
  for (int o = 1; o < kRanks; o <<= 1) {
    count += __shfl_xor_sync(kFull, count, o);
    mass += __shfl_xor_sync(kFull, mass, o);
  }
}

// After the barrier that published a level: finds the first bin whose running totals, plus
// what lies above the level, reach a limit. Fills sh.hit (read after the final barrier here).
template <class S>
__device__ void merge_level(cg::cluster_group& cluster, S& sh, int parity) {
  const int t = threadIdx.x;
  const Search& s = sh.search;
  auto reaches = [&](unsigned count, float mass) {
    return s.count_above + count >= static_cast<unsigned>(sh.k_limit) ||
           (sh.has_p && s.mass_above + mass >= sh.limit_mass);
  };
  if (t < kGroups * kRanks) {  // groups: the last bin of each
    const int g = t / kRanks, r = t % kRanks;
    unsigned count;
    float mass, rank_mass;
    merge_bin(cluster, sh, parity, g * kGroupBins + kGroupBins - 1, r, count, mass, rank_mass);
    sh.group_rank_mass[g][r] = rank_mass;
    if (r == 0) {
      sh.group_count[g] = count;
      sh.group_mass[g] = mass;
      sh.group_hit[g] = reaches(count, mass);
    }
  }
  __syncthreads();
  int group = kGroups;
  for (int g = kGroups - 1; g >= 0; --g) group = sh.group_hit[g] ? g : group;
  if (group < kGroups && t < kGroupBins * kRanks) {  // the bins of the hit group
    const int b = t / kRanks, r = t % kRanks;
    unsigned count;
    float mass, rank_mass;
    merge_bin(cluster, sh, parity, group * kGroupBins + b, r, count, mass, rank_mass);
    sh.fine_rank_mass[b][r] = rank_mass;
    if (r == 0) {
      sh.fine_count[b] = count;
      sh.fine_mass[b] = mass;
      sh.fine_hit[b] = reaches(count, mass);
    }
  }
  __syncthreads();
  if (t < kRanks) {
    const int r = t;
    LevelHit& h = sh.hit;
    int bin = kBins;
    if (group < kGroups) {
      int b = kGroupBins - 1;  // the group's last bin hits, so one of its bins does
      for (int i = kGroupBins - 1; i >= 0; --i) b = sh.fine_hit[i] ? i : b;
      bin = group * kGroupBins + b;
      // Totals at the bin before the hit: inside the group, or the previous group's last bin.
      if (b > 0) {
        h.rank_mass[0][r] = sh.fine_rank_mass[b - 1][r];
        if (r == 0) { h.count[0] = sh.fine_count[b - 1]; h.mass[0] = sh.fine_mass[b - 1]; }
      } else if (group > 0) {
        h.rank_mass[0][r] = sh.group_rank_mass[group - 1][r];
        if (r == 0) { h.count[0] = sh.group_count[group - 1]; h.mass[0] = sh.group_mass[group - 1]; }
      } else {
        h.rank_mass[0][r] = 0.0f;
        if (r == 0) { h.count[0] = 0; h.mass[0] = 0.0f; }
      }
      h.rank_mass[1][r] = sh.fine_rank_mass[b][r];
      if (r == 0) { h.count[1] = sh.fine_count[b]; h.mass[1] = sh.fine_mass[b]; }
    } else {  // no bin hits: the totals of the whole level
      h.rank_mass[0][r] = sh.group_rank_mass[kGroups - 1][r];
      h.rank_mass[1][r] = sh.group_rank_mass[kGroups - 1][r];
      if (r == 0) {
        h.count[0] = h.count[1] = sh.group_count[kGroups - 1];
        h.mass[0] = h.mass[1] = sh.group_mass[kGroups - 1];
      }
    }
    if (r == 0) h.bin = bin;
  }
  __syncthreads();
}

// Moves what the level found above its hit into the search: those tokens are kept.
template <class S>
__device__ void keep_above_hit(S& sh) {
  const int t = threadIdx.x;
  if (t < kRanks) sh.search.rank_above[t] += sh.hit.rank_mass[0][t];
  __syncthreads();
  if (t == 0) {
    sh.search.count_above += sh.hit.count[0];
    sh.search.mass_above += sh.hit.mass[0];
  }
}

template <int N>
__device__ __forceinline__ void prefetch_slice(Shared<N>& sh, const float* row_ptr, int len, bool vec) {
  const int t = threadIdx.x;
#pragma unroll
  for (int q = 0; q < N / 4; ++q) {
    const int chunk = q * kThreads + t;
    const int first = chunk * 4;
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&sh.slice[chunk]));
    if (vec) {
      if (first < len)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(row_ptr + first));
    } else {
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        if (first + c < len)
          asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst + 4 * c), "l"(row_ptr + first + c));
      }
    }
  }
  asm volatile("cp.async.commit_group;" ::);
}

// Element e of thread t's registers is slice element (e / 4 * kThreads + t) * 4 + e % 4.
__device__ __forceinline__ int slice_index(int e) { return ((e >> 2) * kThreads + threadIdx.x) * 4 + (e & 3); }

template <int N>
__global__ void __launch_bounds__(kThreads, 2)
    histogram_sample_kernel(const float* __restrict__ logits, int64_t row_stride,
                            const int* __restrict__ top_k, const float* __restrict__ top_p,
                            const float* __restrict__ temperature, int64_t* __restrict__ samples,
                            int batch, int vocab, uint64_t seed, int vec) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  Shared<N>& sh = *reinterpret_cast<Shared<N>*>(shared_raw);
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int t = threadIdx.x;
  constexpr int kSlice = kThreads * N;
  const int begin = rank * kSlice;
  const int len = max(0, min(kSlice, vocab - begin));
  const int first_row = blockIdx.x / kRanks;
  const int row_step = gridDim.x / kRanks;

  sh.bin_count[t] = 0;
  sh.bin_mass[t] = 0;
  int parity = 0;
  // The next row's slice and parameters are in flight while the current row is decided.
  float next_temperature = 1.0f, next_p = 1.0f;
  int next_k = 0;
  if (first_row < batch) {
    prefetch_slice(sh, logits + first_row * row_stride + begin, len, vec != 0);
    next_temperature = temperature[first_row];
    next_k = top_k[first_row];
    next_p = top_p[first_row];
  }
  __syncthreads();

  for (int row = first_row; row < batch; row += row_step) {
    // Load: this thread's chunks, scaled; then start the next row's.
    const float s = kLog2e / next_temperature;
    const int row_k = next_k;
    const float row_p = next_p;
    D2K_PHASE_START();
    asm volatile("cp.async.wait_all;" ::: "memory");
    float y[N];
    float local_max = -INFINITY;
#pragma unroll
    for (int q = 0; q < N / 4; ++q) {
      const float4 v = sh.slice[q * kThreads + t];
      const float xs[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int e = 4 * q + c;
        // fma with +0 turns -0 into +0 (the two must tie); fmaxf turns NaN into -inf.
        y[e] = slice_index(e) < len ? fmaxf(fmaf(xs[c], s, 0.0f), -INFINITY) : -INFINITY;
        local_max = fmaxf(local_max, y[e]);
      }
    }
    if (row + row_step < batch) {
      prefetch_slice(sh, logits + (row + row_step) * row_stride + begin, len, vec != 0);
      next_temperature = temperature[row + row_step];
      next_k = top_k[row + row_step];
      next_p = top_p[row + row_step];
    }

    D2K_PHASE(0, rank == 0);
    // Level 1: bins of 1/16 octave on the grid floor(16 y), anchored at this slice's maximum.
    const float m_r = block_max(local_max, sh);
    D2K_PHASE(1, rank == 0);
    const float anchor_r = floorf(m_r * kBinsPerOctave);
    // The lowest binned y; an empty slice bins nothing.
    const float edge_r = m_r > -INFINITY ? (anchor_r - (kBins - 1)) / kBinsPerOctave : INFINITY;
    float z = 0.0f;
    unsigned count = 0;
#pragma unroll
    for (int e = 0; e < N; ++e) {
      const float w = ex2(y[e] - m_r);
      z += w;
      count += y[e] > -INFINITY;
      if (y[e] >= edge_r) {
        const float grid = floorf(y[e] * kBinsPerOctave);
        const int bin = static_cast<int>(anchor_r - grid);
        atomicAdd(&sh.bin_count[bin], 1u);
        atomicAdd(&sh.bin_mass[bin],
                  static_cast<unsigned>(ex2(y[e] - (grid + 1.0f) / kBinsPerOctave) * kMassUnit + 0.5f));
      }
    }
    z = warp_sum(z);
    count = __reduce_add_sync(kFull, count);
    if ((t & 31) == 0) {
      sh.red_f[t >> 5] = z;
      sh.red_i[t >> 5] = static_cast<int>(count);
    }
    __syncthreads();
    if (t == 0) {
      float zs = 0.0f;
      unsigned cs = 0;
      for (int w = 0; w < kWarps; ++w) {
        zs += sh.red_f[w];
        cs += static_cast<unsigned>(sh.red_i[w]);
      }
      sh.mail = Mail{m_r, anchor_r, m_r > -INFINITY ? zs : 0.0f, cs};
    }
    // Bin t's upper edge is (anchor_r - t + 1) / 16; its masses are published relative to m_r.
    publish_histogram(sh, parity, ex2((anchor_r - t + 1.0f) / kBinsPerOctave - m_r) * kMassUnitInverse);
    D2K_PHASE(2, rank == 0);
    cluster.sync();
    D2K_PHASE(3, rank == 0);

    // The row's scalars, from the sixteen mails.
    if (t < 32) {
      const int lane = t;
      Mail mail{-INFINITY, 0.0f, 0.0f, 0u};
      if (lane < kRanks) mail = *cluster.map_shared_rank(&sh.mail, lane);
      const bool valid = lane < kRanks && mail.m > -INFINITY;
      const float m = warp_max(valid ? mail.m : -INFINITY);
      const float anchor = floorf(m * kBinsPerOctave);
      const float scale = valid ? ex2(mail.m - m) : 0.0f;
      const float zr = valid ? mail.z * scale : 0.0f;
      float zsum = zr;
      unsigned csum = valid ? mail.count : 0u;
#pragma unroll
      for (int o = 1; o < kRanks; o <<= 1) {
        zsum += __shfl_xor_sync(kFull, zsum, o);
        csum += __shfl_xor_sync(kFull, csum, o);
      }
      const bool exact_lane = !valid || (fabsf(mail.anchor) < kExactAnchor && fabsf(anchor) < kExactAnchor);
      const bool exact = __all_sync(kFull, exact_lane) && m > -INFINITY && m < INFINITY;
      if (lane < kRanks) {
        sh.valid[lane] = valid;
        sh.shift[lane] = valid ? anchor - mail.anchor : 0.0f;
        sh.scale[lane] = scale;
        sh.rank_z[lane] = zr;
        sh.search.rank_above[lane] = 0.0f;
      }
      if (lane == 0) {
        sh.m = m;
        sh.total = csum;
        sh.anchor = anchor;
        sh.exact = exact;
        sh.k_limit = (row_k <= 0 || row_k >= vocab) ? vocab + 1 : row_k;
        sh.has_p = row_p < 1.0f;
        sh.limit_mass = row_p * zsum;
        sh.search.count_above = 0;
        sh.search.mass_above = 0.0f;
        sh.search.single_value = 0;
      }
    }
    __syncthreads();
    const float m = sh.m;

    if (sh.exact) {
      merge_level(cluster, sh, parity);
      const int bin = sh.hit.bin;
      // Below the binned range a limit is still reached, unless neither limit binds at all.
      const bool limit_in_floor = sh.total >= static_cast<unsigned>(sh.k_limit) || sh.has_p;
      keep_above_hit(sh);
      if (t == 0) {
        Search& st = sh.search;
        if (bin < kBins) {
          st.lo = (sh.anchor - bin) / kBinsPerOctave;
          st.hi = (sh.anchor - bin + 1) / kBinsPerOctave;
          st.inside = sh.hit.count[1] - sh.hit.count[0];
        } else if (limit_in_floor) {
          st.lo = -FLT_MAX;
          st.hi = (sh.anchor - (kBins - 1)) / kBinsPerOctave;
          st.inside = sh.total - sh.hit.count[0];
        } else {  // every token is kept
          st.lo = st.hi = -FLT_MAX;
          st.inside = 0;
        }
      }
      if (t < kRanks && bin == kBins && !limit_in_floor) sh.search.rank_above[t] = sh.rank_z[t];
    } else if (t == 0) {
      // Beyond the exact bin range (or no finite logit, when nothing is inside and no rank
      // holds mass): radix steps over the whole float range.
      sh.search.lo = -FLT_MAX;
      sh.search.hi = INFINITY;
      sh.search.inside = m > -INFINITY ? sh.total : 0;
    }
    __syncthreads();
    parity ^= 1;
    D2K_PHASE(4, rank == 0);

    // Refinement: split the interval by the bits of y until its tokens fit the candidate list
    // or it holds one value. Rare: flat rows, heavy ties, or y beyond the exact bin range.
    while (sh.search.inside > kMaxCandidates && !sh.search.single_value) {
      const Search st = sh.search;
      const unsigned key_lo = float_key(st.lo);
      const unsigned key_hi = float_key(st.hi);
      const unsigned width = key_hi - key_lo;
      const int shift = max(0, 32 - __clz(width - 1) - kRadixBits);
      // Sub-bin d holds the keys [key_hi - (d + 1) 2^shift, key_hi - d 2^shift); its weights are
      // taken relative to its upper edge (at most m).
      auto upper_edge = [&](unsigned d) { return fminf(key_float(key_hi - (d << shift)), m); };
#pragma unroll
      for (int e = 0; e < N; ++e) {
        if (y[e] >= st.lo && y[e] < st.hi) {
          const unsigned bin = (key_hi - 1u - float_key(y[e])) >> shift;
          atomicAdd(&sh.bin_count[bin], 1u);
          atomicAdd(&sh.bin_mass[bin], static_cast<unsigned>(ex2(y[e] - upper_edge(bin)) * kMassUnit + 0.5f));
        }
      }
      __syncthreads();
      // Bins past the interval's bottom are empty (their edge is never used).
      publish_histogram(sh, parity, ex2(upper_edge(t) - m) * kMassUnitInverse);
      if (t < kRanks) {  // one grid for every rank, masses relative to m
        sh.shift[t] = 0.0f;
        sh.valid[t] = 1;
        sh.scale[t] = 1.0f;
      }
      cluster.sync();
      merge_level(cluster, sh, parity);
      parity ^= 1;
      const int bin = sh.hit.bin;
      keep_above_hit(sh);
      if (t == 0) {
        Search& next = sh.search;
        if (bin < kBins) {
          const unsigned top = key_hi - (static_cast<unsigned>(bin) << shift);
          const long long bottom = static_cast<long long>(top) - (1ll << shift);
          const unsigned new_lo = static_cast<unsigned>(max(static_cast<long long>(key_lo), bottom));
          next.hi = key_float(top);
          next.lo = key_float(new_lo);
          next.inside = sh.hit.count[1] - sh.hit.count[0];
          next.single_value = top - new_lo == 1u;
        } else {  // rounding left the limit unreached inside: all of the interval is kept
          next.hi = st.lo;
          next.inside = 0;
        }
      }
      __syncthreads();
    }

    // A single value with too many tokens to list is kept or dropped as a whole (value rule):
    // its tokens have exactly count_above tokens and mass_above strictly above them.
    if (sh.search.single_value && sh.search.inside > kMaxCandidates) {
      const Search st = sh.search;
      const bool kept = st.lo >= m || (st.count_above < static_cast<unsigned>(sh.k_limit) &&
                                       (!sh.has_p || st.mass_above < sh.limit_mass));
      __syncthreads();
      if (kept && t < kRanks) sh.search.rank_above[t] += sh.hit.rank_mass[1][t] - sh.hit.rank_mass[0][t];
      if (t == 0) {
        sh.search.inside = 0;
        if (kept) sh.search.hi = st.lo;
      }
      __syncthreads();
    }

    D2K_PHASE(5, rank == 0);
    // Candidates: this CTA's tokens in the interval, in thread order.
    const float lo = sh.search.lo, hi = sh.search.hi;
    const unsigned inside = sh.search.inside;
    if (inside > 0) {
      unsigned mine = 0;
#pragma unroll
      for (int e = 0; e < N; ++e) mine += (y[e] >= lo && y[e] < hi);
      unsigned listed;
      unsigned at = block_exclusive_scan(mine, listed, sh);
#pragma unroll
      for (int e = 0; e < N; ++e) {
        if (y[e] >= lo && y[e] < hi && at < kMaxCandidates) {
          sh.candidates[at] = Candidate{y[e], begin + slice_index(e)};
          ++at;
        }
      }
      if (t == 0) sh.n_candidates = min(listed, static_cast<unsigned>(kMaxCandidates));
    }
    D2K_PHASE(6, rank == 0);
    cluster.sync();
    D2K_PHASE(7, rank == 0);

    // Gather every CTA's candidates in rank order and decide each exactly.
    unsigned* offsets = sh.offsets;
    if (t < 32) {
      const unsigned n = (inside > 0 && t < kRanks) ? *cluster.map_shared_rank(&sh.n_candidates, t) : 0u;
      unsigned incl = n;
#pragma unroll
      for (int o = 1; o < kRanks; o <<= 1) {
        const unsigned up = __shfl_up_sync(kFull, incl, o);
        if (t >= o) incl += up;
      }
      if (t < kRanks) offsets[t + 1] = min(incl, static_cast<unsigned>(kMaxCandidates));
      if (t == 0) offsets[0] = 0;
    }
    __syncthreads();
    const int n_cand = static_cast<int>(offsets[kRanks]);
    if (t < n_cand) {
      int r = 0;
      while (offsets[r + 1] <= static_cast<unsigned>(t)) ++r;
      const Candidate c = cluster.map_shared_rank(&sh.candidates[0], r)[t - offsets[r]];
      sh.cand_y[t] = c.y;
      sh.cand_w[t] = ex2(c.y - m);
      sh.cand_index[t] = c.index;
      sh.cand_rank[t] = r;
    }
    __syncthreads();
    if (t < n_cand) {
      const float yt = sh.cand_y[t];
      unsigned above = 0;
      float mass = 0.0f;
      for (int j = 0; j < n_cand; ++j) {
        if (sh.cand_y[j] > yt) {
          ++above;
          mass += sh.cand_w[j];
        }
      }
      const Search& st = sh.search;
      sh.cand_kept[t] = yt >= m || (st.count_above + above < static_cast<unsigned>(sh.k_limit) &&
                                    (!sh.has_p || st.mass_above + mass < sh.limit_mass));
    }
    __syncthreads();

    D2K_PHASE(8, rank == 0);
    // The draw, first stage (warp 0, the same in every CTA): lane 2r + 1 holds rank r's kept
    // candidates, lane 2r its tokens above the interval; a lane by mass, then, for candidates,
    // one of them by weight.
    static_assert(2 * kRanks == 32, "one lane per (rank, part)");
    if (t < 32) {
      const int lane = t, r = lane >> 1;
      float part = 0.0f;
      if (lane & 1) {
        for (int i = 0; i < n_cand; ++i)
          if (sh.cand_kept[i] && sh.cand_rank[i] == r) part += sh.cand_w[i];
      } else {
        part = sh.search.rank_above[r];
      }
      float incl = part;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const float up = __shfl_up_sync(kFull, incl, o);
        if (lane >= o) incl += up;
      }
      const uint4 bits = philox(seed, static_cast<uint32_t>(row), 0u);
      const float target = (bits.x >> 8) * (1.0f / 16777216.0f) * __shfl_sync(kFull, incl, 31);
      const unsigned hits = __ballot_sync(kFull, part > 0.0f && incl > target);
      const unsigned nonzero = __ballot_sync(kFull, part > 0.0f);
      const int chosen = hits ? __ffs(hits) - 1 : (nonzero ? 31 - __clz(nonzero) : -1);
      if (lane == 0) {
        sh.draw_rank = chosen < 0 ? -1 : chosen >> 1;
        sh.draw_kind = chosen & 1;
      }
      if (lane == chosen && (lane & 1)) {
        const float inner = (bits.y >> 8) * (1.0f / 16777216.0f) * part;
        float acc = 0.0f;
        int token = -1;
        for (int i = 0; i < n_cand; ++i) {
          if (sh.cand_kept[i] && sh.cand_rank[i] == r) {
            token = sh.cand_index[i];
            acc += sh.cand_w[i];
            if (acc > inner) break;
          }
        }
        sh.draw_token = token;
      }
    }
    __syncthreads();
    D2K_PHASE(9, rank == 0);
    const int owner = sh.draw_rank;
    if (owner < 0) {  // no finite logit, so no weight: token 0
      if (rank == 0 && t == 0) samples[row] = 0;
      continue;
    }
    if (owner != rank) continue;
    if (sh.draw_kind == 1) {
      if (t == 0) samples[row] = sh.draw_token;
      continue;
    }

    D2K_PHASE_RESTART();
    // Second stage in the owner: its tokens with y >= hi, in 64-bit fixed point (exact prefix
    // sums), first over threads, then inside the chosen thread.
    unsigned long long mine = 0;
    const float draw_offset = m - kDrawFixedOffset;
#pragma unroll
    for (int e = 0; e < N; ++e)
      if (y[e] >= hi) mine += static_cast<unsigned long long>(ex2(y[e] - draw_offset));
    unsigned long long total;
    const unsigned long long before = block_exclusive_scan64(mine, total, sh);
    const uint4 bits = philox(seed, static_cast<uint32_t>(row), 1u);
    const unsigned long long u64 = (static_cast<unsigned long long>(bits.x) << 32) | bits.y;
    const unsigned long long target = __umul64hi(u64, total);
    if (mine > 0 && before <= target && target < before + mine) {
      const unsigned long long local = target - before;
      unsigned long long acc = 0;
      int pick = -1;
#pragma unroll
      for (int e = 0; e < N; ++e) {
        if (y[e] >= hi) {
          acc += static_cast<unsigned long long>(ex2(y[e] - draw_offset));
          if (pick < 0 && acc > local) pick = e;
        }
      }
      samples[row] = begin + slice_index(pick);
    } else if (total == 0 && t == 0) {
      samples[row] = begin;  // unreachable for finite input: the owner holds kept mass
    }
    D2K_PHASE(10, true);
  }
  cluster.sync();  // no CTA leaves while another may still read its candidates
}

bool is_dtype(const DLTensor& t, uint8_t code, uint8_t bits) {
  return t.dtype.code == code && t.dtype.bits == bits && t.dtype.lanes == 1;
}

bool is_vector(const DLTensor& t, int64_t n) { return t.ndim == 1 && t.shape[0] == n && t.strides[0] == 1; }

// One instance per register-array size; the smallest that holds vocab / kRanks tokens per CTA.
struct Variant {
  int per_thread;
  void (*kernel)(const float*, int64_t, const int*, const float*, const float*, int64_t*, int, int,
                 uint64_t, int);
  size_t shared_bytes;
};

constexpr Variant kVariants[] = {
    {4, histogram_sample_kernel<4>, sizeof(Shared<4>)},
    {8, histogram_sample_kernel<8>, sizeof(Shared<8>)},
    {32, histogram_sample_kernel<32>, sizeof(Shared<32>)},
    {40, histogram_sample_kernel<40>, sizeof(Shared<40>)},
};

}  // namespace

int32_t d2k_native_abi_version(void) { return D2K_NATIVE_ABI_VERSION; }

#ifdef D2K_PHASE_TIMES
// Profiling build only: the phases the counters stand for, in counter order.
extern "C" D2K_NATIVE_EXPORT const char* d2k_sampling_phase_names(void) {
  return "wait + registers;slice max;level-1 histogram + publish;barrier A;merge + search;refinement;candidates;barrier B;gather + decide;draw stage 1;owner's draw (drawing CTA)";
}

// Profiling build only: copies the 32 phase counters out and clears them.
extern "C" D2K_NATIVE_EXPORT int32_t d2k_sampling_phase_cycles(unsigned long long* out) {
  unsigned long long zero[32] = {};
  if (cudaDeviceSynchronize() != cudaSuccess ||
      cudaMemcpyFromSymbol(out, d2k_phase_cycles, sizeof(zero)) != cudaSuccess ||
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
      !is_vector(top_p, batch) || !is_dtype(temperature, kDLFloat, 32) || !is_vector(temperature, batch) ||
      !is_dtype(samples, kDLInt, 64) || !is_vector(samples, batch)) {
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
  const Variant* variant = nullptr;
  for (const Variant& v : kVariants) {
    if (vocab <= static_cast<int64_t>(kRanks) * kThreads * v.per_thread) {
      variant = &v;
      break;
    }
  }
  if (vocab <= 0 || variant == nullptr || batch > INT32_MAX) {
    std::snprintf(error, error_size, "vocab %lld is outside (0, %d]", static_cast<long long>(vocab),
                  kRanks * kThreads * kVariants[3].per_thread);
    return 1;
  }
  // 16-byte copies need 16-byte aligned slices (row start and stride) that end on a chunk.
  const bool vec = reinterpret_cast<uintptr_t>(logits.data) % 16 == 0 && logits.strides[0] % 4 == 0 &&
                   vocab % 4 == 0;

  // Once per variant: the shared-memory limit, the non-portable cluster size, and how many
  // clusters fit on the device at once (the persistent grid).
  static int clusters[sizeof(kVariants) / sizeof(kVariants[0])] = {};
  const size_t which = static_cast<size_t>(variant - kVariants);
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute cluster_dims = {};
  cluster_dims.id = cudaLaunchAttributeClusterDimension;
  cluster_dims.val.clusterDim.x = kRanks;
  cluster_dims.val.clusterDim.y = 1;
  cluster_dims.val.clusterDim.z = 1;
  config.blockDim = dim3(kThreads, 1, 1);
  config.dynamicSmemBytes = variant->shared_bytes;
  config.attrs = &cluster_dims;
  config.numAttrs = 1;
  cudaError_t status = cudaSuccess;
  if (clusters[which] == 0) {
    status = cudaFuncSetAttribute(variant->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(variant->shared_bytes));
    if (status == cudaSuccess)
      status = cudaFuncSetAttribute(variant->kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (status == cudaSuccess) {
      config.gridDim = dim3(kRanks, 1, 1);
      status = cudaOccupancyMaxActiveClusters(&clusters[which], variant->kernel, &config);
    }
    if (status == cudaSuccess && clusters[which] <= 0) {
      std::snprintf(error, error_size, "no cluster of %d CTAs with %zu bytes of shared memory fits", kRanks,
                    variant->shared_bytes);
      return 1;
    }
  }
  if (status == cudaSuccess) {
    const int64_t grid_clusters = batch < clusters[which] ? batch : clusters[which];
    config.gridDim = dim3(static_cast<unsigned>(grid_clusters * kRanks), 1, 1);
    config.stream = static_cast<cudaStream_t>(call->stream);
    status = cudaLaunchKernelEx(&config, variant->kernel, static_cast<const float*>(logits.data),
                                static_cast<int64_t>(logits.strides[0]), static_cast<const int*>(top_k.data),
                                static_cast<const float*>(top_p.data),
                                static_cast<const float*>(temperature.data), static_cast<int64_t*>(samples.data),
                                static_cast<int>(batch), static_cast<int>(vocab),
                                static_cast<uint64_t>(seed->int64_value), vec ? 1 : 0);
  }
  if (status != cudaSuccess) {
    std::snprintf(error, error_size, "CUDA error: %s", cudaGetErrorString(status));
    return 1;
  }
  return 0;
}
