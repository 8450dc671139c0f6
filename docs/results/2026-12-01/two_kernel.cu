// Archived design experiment, not the task's expert (docs/results.md, 2026-12-01, "Three
// sampling designs"). Checked and timed in the expert's place, from the repository root, by
//   python3 tasks/topk_topp_sampling/expert/check.py --impl expert --source THIS_FILE \
//       --full --time --phases --batch-scan 1,64,256
// Measured as check4.txt (its first version, without the posted row maximum, as check3.txt).
//
// A sampler in CUDA C++: exact top-k/top-p sampling without a sort, by locating the keep threshold
// with a log-scale histogram. Written against d2k's native ABI (include/d2k/native_abi.h).
//
// Per row, with y_j = logits[j] * log2(e) / temperature and m = max_j y_j, token j has weight
// w_j = 2^(y_j - m). A value v is kept when count(y > v) < k and mass(y > v) < p * Z (Z the sum
// of all weights), so the kept set is {y >= theta} for one threshold theta.
//
// Kernel 1, one CTA per 8192-token chunk of a row, CTAs independent of each other:
//   The chunk is read once into registers. Its tokens within 16 octaves of the chunk's maximum
//   are binned on a grid every CTA shares (bin = floor(16 y), 1/16 octave): counts, and weights
//   in 16-bit fixed point relative to each bin's upper edge, by 32-bit shared atomics, so every
//   sum is independent of the order of the atomics. The CTA writes to the workspace the running
//   totals from its top bin down, and its tokens of the top bins that fit a list of 64 (its
//   largest tokens, cut at a bin boundary). The last CTA of the row to finish (an atomic count)
//   decides the row: it merges the chunks' totals (16-bin groups first, then the bins of the
//   hit group) and finds the first bin b* where the tokens at or above it reach a limit; every
//   token above b* is kept, every token below it dropped. When every chunk's list reaches b*,
//   all kept tokens and all of b* are in the lists: it decides b*'s tokens exactly (count and
//   mass strictly above each), splitting b* by the bits of y while it holds more than 256, and
//   draws by a 64-bit fixed-point inverse CDF over the kept tokens. Nothing waits on another
//   CTA, so a row's decision overlaps other rows' reads.
// Kernel 2, a cluster of 16 CTAs per row, for the rows whose lists did not reach b* (flat rows
// with thousands of tokens near the threshold): each CTA reads back a 1/16 slice, and the CTAs
// split b* further through distributed shared memory (a radix step per cluster barrier) until
// its tokens fit a list, decide them, and draw: a (CTA, part) by mass, the part being the CTA's
// tokens above the interval or its kept candidates, then inside the CTA's tokens a fixed-point
// inverse CDF over threads and over one thread's tokens. Every decision there is taken from
// data all CTAs hold identically, with the same operations in the same order.
// Rows with no limit at all skip the threshold: kernel 1 picks a chunk by mass and draws in it.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <d2k/native_abi.h>

namespace {

namespace cg = cooperative_groups;

constexpr int kBins = 256;      // bins per histogram level
constexpr int kGroupBins = 16;  // the threshold search looks at groups of 16 bins first
constexpr int kGroups = kBins / kGroupBins;
constexpr float kBinsPerOctave = 16.0f;
constexpr int kRadixBits = 8;  // kBins = 2^8 sub-bins per split
constexpr int kResolveCap = 256;  // candidates decided pairwise
constexpr float kLog2e = 1.4426950408889634f;
constexpr unsigned kFull = 0xffffffffu;
// A binned token adds its weight relative to its bin's upper edge (in (0, 1]) in units of
// 2^-16, rounded: 10240 tokens sum below 2^32.
constexpr float kMassUnit = 65536.0f;
constexpr float kMassUnitInverse = 1.0f / 65536.0f;
// Bin arithmetic (floor(16 y), anchors, edges) is exact while |16 y| stays below 2^23; rows
// beyond that go to kernel 2 and start from the radix split of the whole float range.
constexpr float kExactAnchor = 4194304.0f;
constexpr float kDrawFixedOffset = 40.0f;  // the draws' weights in units of 2^-40 of the maximum

// Kernel 1.
constexpr int kChunkThreads = 128;
constexpr int kChunkWarps = kChunkThreads / 32;
constexpr int kPerThread = 64;
constexpr int kChunk = kChunkThreads * kPerThread;
constexpr int kListCap = 64;
constexpr int kMaxChunks = 20;
constexpr int kGatherCap = kMaxChunks * kListCap;
// Kernel 2.
constexpr int kRanks = 16;  // CTAs per row: a non-portable cluster (Hopper allows 16)
constexpr int kSliceThreads = 256;
constexpr int kSliceWarps = kSliceThreads / 32;
constexpr int kSlicePerThread = 40;
constexpr int kSlice = kSliceThreads * kSlicePerThread;
constexpr int kMaxVocab = kRanks * kSlice;  // 163840
static_assert(kMaxChunks * kChunk >= kMaxVocab, "every row kernel 2 can take has few enough chunks");
static_assert(kGatherCap % kChunkThreads == 0, "the gather's loads per thread");
static_assert(kBins == kSliceThreads && kBins == 2 * kChunkThreads, "bins per thread when publishing");
static_assert(kResolveCap <= kSliceThreads, "kernel 2: thread t decides candidate t");

struct Prefix {  // running totals of one bin, from the top bin down to it
  float mass;
  unsigned count;
};

struct Candidate {
  float y;
  int index;
};

struct ChunkMail {  // what a chunk CTA writes besides its totals and list
  float m;       // the chunk's maximum of y, -inf when it has no token
  float anchor;  // floor(16 m)
  float z;       // sum of 2^(y - m) over the chunk
  unsigned count;
  int cutoff;  // its list holds every token of its bins 0..cutoff
  unsigned listed;
  unsigned pad[2];
};

// A row kernel 1 hands to kernel 2: the search so far.
struct Pending {
  int row, k_limit, has_p;
  unsigned count_above;  // tokens known to be kept (y >= hi)
  float m, limit_mass, mass_above;
  float lo, hi;  // the undecided interval [lo, hi)
  unsigned inside;
  unsigned pad[2];
};

// The workspace, carved the same way on the host and in both kernels.
struct Workspace {
  unsigned* arrivals;  // per row, then the number of pending rows: cleared before each call
  unsigned* row_max;   // per row, float_key of the largest chunk maximum posted so far: cleared too
  Pending* pending;
  ChunkMail* mails;
  Prefix* tables;
  Candidate* lists;
};

struct WorkspaceLayout {
  size_t arrivals, pending, mails, tables, lists, bytes;
  WorkspaceLayout(int64_t batch, int64_t chunks) {
    auto round = [](size_t n) { return (n + 255) / 256 * 256; };
    arrivals = 0;
    pending = round(sizeof(unsigned) * cleared_words(batch));
    mails = pending + round(sizeof(Pending) * batch);
    tables = mails + round(sizeof(ChunkMail) * batch * chunks);
    lists = tables + round(sizeof(Prefix) * kBins * batch * chunks);
    bytes = lists + round(sizeof(Candidate) * kListCap * batch * chunks);
  }
  // The words every call starts from zero: arrivals, the pending count, the row maxima.
  static size_t cleared_words(int64_t batch) { return 2 * static_cast<size_t>(batch) + 1; }
  Workspace carve(void* base, int64_t batch) const {
    char* b = static_cast<char*>(base);
    unsigned* cleared = reinterpret_cast<unsigned*>(b + arrivals);
    return Workspace{cleared, cleared + batch + 1, reinterpret_cast<Pending*>(b + pending),
                     reinterpret_cast<ChunkMail*>(b + mails), reinterpret_cast<Prefix*>(b + tables),
                     reinterpret_cast<Candidate*>(b + lists)};
  }
};

// The limits of a row and what is known to lie above the search's interval.
struct Limits {
  int k_limit, has_p;
  float limit_mass;
  unsigned count_above;
  float mass_above;
  __device__ bool reached(unsigned count, float mass) const {
    return count_above + count >= static_cast<unsigned>(k_limit) || (has_p && mass_above + mass >= limit_mass);
  }
};

// What a level's search found: the first bin whose running totals reach a limit (kBins when
// none does), the totals before it and at it, and the same per source (chunk or CTA).
struct LevelHit {
  int bin;
  unsigned count[2];
  float mass[2];
  float source_mass[2][32];
};

struct LevelScratch {
  unsigned count[2][kGroups];
  float mass[2][kGroups];
  int hit[2][kGroups];
  float source_mass[2][kGroups][32];
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

__device__ __forceinline__ float unit_uniform(uint32_t bits) { return (bits >> 8) * (1.0f / 16777216.0f); }

// A token's weight for the draws: 2^(y - m) in units of 2^-40, exact to sum.
__device__ __forceinline__ unsigned long long draw_weight(float y, float m) {
  return static_cast<unsigned long long>(ex2(y - (m - kDrawFixedOffset)));
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

// Block-wide operations over W warps, in thread order, with the same operations in every call.
template <int W>
struct Block {
  float f[W];
  unsigned u[W];
  unsigned long long ull[W];

  __device__ float max(float v) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_max(v);
    if (lane == 0) f[warp] = v;
    __syncthreads();
    float r = f[0];
#pragma unroll
    for (int w = 1; w < W; ++w) r = fmaxf(r, f[w]);
    __syncthreads();
    return r;
  }
  __device__ float sum(float v) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) f[warp] = v;
    __syncthreads();
    float r = 0.0f;
#pragma unroll
    for (int w = 0; w < W; ++w) r += f[w];
    __syncthreads();
    return r;
  }
  // Exclusive prefix and total of integers.
  template <class T>
  __device__ T scan(T v, T& total, T (&slot)[W]) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T incl = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const T up = __shfl_up_sync(kFull, incl, o);
      if (lane >= o) incl += up;
    }
    if (lane == 31) slot[warp] = incl;
    __syncthreads();
    T before = 0;
    total = 0;
#pragma unroll
    for (int w = 0; w < W; ++w) {
      if (w < warp) before += slot[w];
      total += slot[w];
    }
    __syncthreads();
    return before + incl - v;
  }
  __device__ unsigned scan(unsigned v, unsigned& total) { return scan<unsigned>(v, total, u); }
  __device__ unsigned long long scan(unsigned long long v, unsigned long long& total) {
    return scan<unsigned long long>(v, total, ull);
  }
  // Exclusive float prefix, built without subtraction.
  __device__ float scan(float v) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float incl = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const float up = __shfl_up_sync(kFull, incl, o);
      if (lane >= o) incl += up;
    }
    float excl = __shfl_up_sync(kFull, incl, 1);
    if (lane == 0) excl = 0.0f;
    if (lane == 31) f[warp] = incl;
    __syncthreads();
    float before = 0.0f;
#pragma unroll
    for (int w = 0; w < W; ++w)
      if (w < warp) before += f[w];
    __syncthreads();
    return before + excl;
  }
};

// Turns a histogram (bin 0 the top; `count`, and `mass` in fixed point with `unit(b)` the weight
// of one unit of bin b) into running totals from the top, passed to `store(b, totals)`, and
// clears it. Each thread owns kBins / threads consecutive bins.
template <int W, class Unit, class Store>
__device__ void publish_histogram(Block<W>& block, unsigned* count, unsigned* mass, Unit unit, Store store) {
  constexpr int kPer = kBins / (32 * W);
  const int first = threadIdx.x * kPer;
  unsigned c[kPer];
  float w[kPer];
  unsigned count_sum = 0;
  float mass_sum = 0.0f;
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    c[i] = count[first + i];
    w[i] = c[i] > 0 ? static_cast<float>(mass[first + i]) * unit(first + i) : 0.0f;
    count[first + i] = 0;
    mass[first + i] = 0;
    count_sum += c[i];
    mass_sum += w[i];
  }
  unsigned total;
  unsigned count_run = block.scan(count_sum, total);
  float mass_run = block.scan(mass_sum);
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    count_run += c[i];
    mass_run += w[i];
    store(first + i, Prefix{mass_run, count_run});
  }
}

// After a level's totals are published: `load(bin, source)` gives one source's running totals at
// a bin (zero for an absent source). Finds the first bin where the merged totals, plus what lies
// above the level, reach a limit; each warp sums one bin over 32 sources in a fixed order.
template <int W, class Load>
__device__ void search_level(const Limits& limits, Load load, LevelScratch& scratch, LevelHit& hit) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int group = kGroups;
  for (int stage = 0; stage < 2; ++stage) {
    if (stage == 1 && group == kGroups) break;
    for (int g = warp; g < kGroups; g += W) {
      const int bin = stage == 0 ? g * kGroupBins + kGroupBins - 1 : group * kGroupBins + g;
      const Prefix p = load(bin, lane);
      const unsigned count = __reduce_add_sync(kFull, p.count);
      const float mass = warp_sum(p.mass);
      scratch.source_mass[stage][g][lane] = p.mass;
      if (lane == 0) {
        scratch.count[stage][g] = count;
        scratch.mass[stage][g] = mass;
        scratch.hit[stage][g] = limits.reached(count, mass);
      }
    }
    __syncthreads();
    if (stage == 0)
      for (int g = kGroups - 1; g >= 0; --g) group = scratch.hit[0][g] ? g : group;
  }
  if (threadIdx.x < 32) {
    // (stage, index) of the totals at the hit and just before it; without a hit both are the
    // level's totals (the last group's last bin).
    int bin = kBins, at_stage = 0, at = kGroups - 1, before_stage = 0, before = kGroups - 1;
    if (group < kGroups) {
      int b = kGroupBins - 1;  // the group's last bin hits, so one of its bins does
      for (int i = kGroupBins - 1; i >= 0; --i) b = scratch.hit[1][i] ? i : b;
      bin = group * kGroupBins + b;
      at_stage = 1;
      at = b;
      before_stage = b > 0 ? 1 : 0;
      before = b > 0 ? b - 1 : group - 1;  // -1: nothing above the hit
    }
    const bool none = before < 0;
    hit.source_mass[0][lane] = none ? 0.0f : scratch.source_mass[before_stage][before][lane];
    hit.source_mass[1][lane] = scratch.source_mass[at_stage][at][lane];
    if (lane == 0) {
      hit.bin = bin;
      hit.count[0] = none ? 0u : scratch.count[before_stage][before];
      hit.mass[0] = none ? 0.0f : scratch.mass[before_stage][before];
      hit.count[1] = scratch.count[at_stage][at];
      hit.mass[1] = scratch.mass[at_stage][at];
    }
  }
  __syncthreads();
}

// The sub-bins of a radix split of [lo, hi): sub-bin d holds the keys
// [key_hi - (d + 1) 2^shift, key_hi - d 2^shift); weights are taken relative to its upper edge.
struct RadixSplit {
  unsigned key_lo, key_hi;
  int shift;
  float m;
  __device__ RadixSplit(float lo, float hi, float m_) : key_lo(float_key(lo)), key_hi(float_key(hi)), m(m_) {
    shift = max(0, 32 - __clz(key_hi - key_lo - 1) - kRadixBits);
  }
  __device__ unsigned bin(float y) const { return (key_hi - 1u - float_key(y)) >> shift; }
  __device__ float upper_edge(unsigned d) const { return fminf(key_float(key_hi - (d << shift)), m); }
  __device__ unsigned fixed_mass(float y, unsigned d) const {
    return static_cast<unsigned>(ex2(y - upper_edge(d)) * kMassUnit + 0.5f);
  }
  __device__ float unit(unsigned d) const { return ex2(upper_edge(d) - m) * kMassUnitInverse; }
  // The interval of sub-bin d, as [lo, hi); `single` when it holds one value.
  __device__ void interval(unsigned d, float& lo, float& hi, bool& single) const {
    const unsigned top = key_hi - (d << shift);
    const long long bottom = static_cast<long long>(top) - (1ll << shift);
    const unsigned low = static_cast<unsigned>(max(static_cast<long long>(key_lo), bottom));
    hi = key_float(top);
    lo = key_float(low);
    single = top - low == 1u;
  }
};

// Loads thread threadIdx.x's PER tokens of a block of THREADS * PER tokens starting at src:
// element e is token (e / 4 * THREADS + threadIdx.x) * 4 + e % 4, scaled to y = x s; tokens past
// `len` are -inf. fma with +0 turns -0 into +0 (the two must tie); fmaxf turns NaN into -inf.
template <int PER, int THREADS>
__device__ __forceinline__ void load_tokens(const float* __restrict__ src, int len, float s, bool vec,
                                            float (&y)[PER]) {
#pragma unroll
  for (int q = 0; q < PER / 4; ++q) {
    const int first = (q * THREADS + threadIdx.x) * 4;
    float x[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (vec) {
      if (first < len) {
        const float4 v = __ldg(reinterpret_cast<const float4*>(src + first));
        x[0] = v.x;
        x[1] = v.y;
        x[2] = v.z;
        x[3] = v.w;
      }
    } else {
#pragma unroll
      for (int c = 0; c < 4; ++c)
        if (first + c < len) x[c] = __ldg(src + first + c);
    }
#pragma unroll
    for (int c = 0; c < 4; ++c)
      y[4 * q + c] = first + c < len ? fmaxf(fmaf(x[c], s, 0.0f), -INFINITY) : -INFINITY;
  }
}

template <int THREADS>
__device__ __forceinline__ int token_index(int e) {
  return ((e >> 2) * THREADS + threadIdx.x) * 4 + (e & 3);
}

// Draws one of a block's tokens with y >= lo by weight (64-bit fixed point, so the prefix sums
// are exact): a thread by its sum, then a token inside it. Returns the token's element in the
// thread that holds it, -1 elsewhere (everywhere when no token has weight).
template <int W, int PER>
__device__ int draw_in_block(Block<W>& block, const float (&y)[PER], float lo, float m, uint4 bits) {
  unsigned long long mine = 0;
#pragma unroll
  for (int e = 0; e < PER; ++e)
    if (y[e] >= lo) mine += draw_weight(y[e], m);
  unsigned long long total;
  const unsigned long long before = block.scan(mine, total);
  const unsigned long long target = __umul64hi((static_cast<unsigned long long>(bits.x) << 32) | bits.y, total);
  if (mine == 0 || target < before || target >= before + mine) return -1;
  unsigned long long acc = before;
  int pick = -1;
#pragma unroll
  for (int e = 0; e < PER; ++e) {
    if (y[e] >= lo) {
      acc += draw_weight(y[e], m);
      if (pick < 0 && acc > target) pick = e;
    }
  }
  return pick;
}

// Reads of the workspace written by other CTAs of the same launch: through L2 (ld.global.cg).
__device__ __forceinline__ Prefix load_prefix(const Prefix* p) {
  const int2 v = __ldcg(reinterpret_cast<const int2*>(p));
  return Prefix{__int_as_float(v.x), static_cast<unsigned>(v.y)};
}
__device__ __forceinline__ Candidate load_candidate(const Candidate* p) {
  const int2 v = __ldcg(reinterpret_cast<const int2*>(p));
  return Candidate{__int_as_float(v.x), v.y};
}
template <class T>
__device__ __forceinline__ T load_record(const T* p) {
  static_assert(sizeof(T) % 16 == 0, "records are read as 16-byte words");
  T r;
  const int4* src = reinterpret_cast<const int4*>(p);
  int4* dst = reinterpret_cast<int4*>(&r);
#pragma unroll
  for (int i = 0; i < static_cast<int>(sizeof(T) / 16); ++i) dst[i] = __ldcg(src + i);
  return r;
}

#ifdef D2K_PHASE_TIMES
// Profiling build only (expert/check.py --phases): cycles spent in each phase, summed over the
// CTAs that ran it, with the number of times each phase ended 16 places further.
__device__ unsigned long long d2k_phase_cycles[32];
#define D2K_PHASE_START() long long phase_mark = clock64()
#define D2K_PHASE(i)                                                                      \
  do {                                                                                    \
    if (threadIdx.x == 0) {                                                               \
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

// ---------------------------------------------------------------------------------------------
// Kernel 1: one CTA per chunk; the last CTA of a row decides it.

struct ChunkShared {
  Block<kChunkWarps> block;
  unsigned bin_count[kBins];
  unsigned bin_mass[kBins];
  Prefix split_table[kBins];
  float posted_max;
  int last;
  // The deciding CTA's row state.
  float m, anchor;
  unsigned total;
  int exact, covered, all_kept, pick;
  float shift[kMaxChunks], scale[kMaxChunks], chunk_z[kMaxChunks];
  int cutoff[kMaxChunks];
  unsigned list_begin[kMaxChunks + 1];
  LevelScratch level;
  LevelHit hit;
  Limits limits;
  float lo, hi;
  unsigned inside;
  int single_value;
  // The gathered lists, chunk by chunk; state 0 dropped, 1 kept, 2 undecided.
  Candidate entries[kGatherCap];
  unsigned char state[kGatherCap];
  // The undecided entries, when few enough to decide pairwise.
  float cand_y[kResolveCap];
  float cand_w[kResolveCap];
  int cand_at[kResolveCap];
};

// Splits the undecided entries' interval [lo, hi) into kBins sub-bins by the bits of y: the
// sub-bins above the one that reaches a limit are kept, those below it dropped.
__device__ void split_entries(ChunkShared& sh, unsigned n, float m) {
  const int t = threadIdx.x;
  const RadixSplit split(sh.lo, sh.hi, m);
  for (unsigned i = t; i < n; i += kChunkThreads) {
    if (sh.state[i] != 2) continue;
    const float y = sh.entries[i].y;
    const unsigned d = split.bin(y);
    atomicAdd(&sh.bin_count[d], 1u);
    atomicAdd(&sh.bin_mass[d], split.fixed_mass(y, d));
  }
  __syncthreads();
  publish_histogram(sh.block, sh.bin_count, sh.bin_mass, [&](int d) { return split.unit(d); },
                    [&](int d, Prefix p) { sh.split_table[d] = p; });
  __syncthreads();
  search_level<kChunkWarps>(
      sh.limits, [&](int bin, int source) { return source == 0 ? sh.split_table[bin] : Prefix{0.0f, 0u}; },
      sh.level, sh.hit);
  const int bin = sh.hit.bin;
  float lo = sh.lo, hi = sh.lo;  // no hit (rounding left the limit unreached): all of it kept
  bool single = false;
  if (bin < kBins) split.interval(bin, lo, hi, single);
  for (unsigned i = t; i < n; i += kChunkThreads) {
    if (sh.state[i] != 2) continue;
    const float y = sh.entries[i].y;
    sh.state[i] = y >= hi ? 1 : (y < lo ? 0 : 2);
  }
  __syncthreads();
  if (t == 0) {
    sh.limits.count_above += sh.hit.count[0];
    sh.limits.mass_above += sh.hit.mass[0];
    sh.inside = bin < kBins ? sh.hit.count[1] - sh.hit.count[0] : 0u;
    sh.single_value = single;
    sh.lo = lo;
    sh.hi = hi;
  }
  __syncthreads();
}

// Every chunk's list reaches b*: all kept tokens and all tokens of b* are gathered. Decides the
// undecided ones and draws among the kept ones in list order.
__device__ void decide_from_lists(ChunkShared& sh, const Workspace& ws, size_t first_slot, int chunks, float m,
                                  int64_t* samples, int row, uint64_t seed) {
  const int t = threadIdx.x;
  const unsigned n = sh.list_begin[chunks];
  const float lo = sh.lo, hi = sh.hi;
  // Every load first, then every store: the loads are in flight together.
  constexpr int kPerGather = kGatherCap / kChunkThreads;
  Candidate e[kPerGather];
#pragma unroll
  for (int k = 0; k < kPerGather; ++k) {
    const unsigned i = t + k * kChunkThreads;
    if (i < n) {
      int c = 0;
      while (sh.list_begin[c + 1] <= i) ++c;
      e[k] = load_candidate(ws.lists + (first_slot + c) * kListCap + (i - sh.list_begin[c]));
    }
  }
#pragma unroll
  for (int k = 0; k < kPerGather; ++k) {
    const unsigned i = t + k * kChunkThreads;
    if (i < n) {
      sh.entries[i] = e[k];
      sh.state[i] = e[k].y >= hi ? 1 : (e[k].y >= lo ? 2 : 0);
    }
  }
  __syncthreads();
  while (sh.inside > kResolveCap && !sh.single_value) split_entries(sh, n, m);

  // Each thread owns a run of consecutive entries, so thread order is list order.
  const unsigned per = (n + kChunkThreads - 1) / kChunkThreads;
  const unsigned first = min(n, t * per), last = min(n, first + per);
  if (sh.inside > kResolveCap) {  // one value: kept or dropped as a whole (value rule)
    const bool kept = sh.lo >= m || !sh.limits.reached(0u, 0.0f);
    for (unsigned i = first; i < last; ++i)
      if (sh.state[i] == 2) sh.state[i] = kept ? 1 : 0;
  } else {
    unsigned mine = 0;
    for (unsigned i = first; i < last; ++i) mine += sh.state[i] == 2;
    unsigned undecided;
    unsigned at = sh.block.scan(mine, undecided);
    undecided = min(undecided, static_cast<unsigned>(kResolveCap));  // equals inside
    for (unsigned i = first; i < last && at < kResolveCap; ++i) {
      if (sh.state[i] != 2) continue;
      sh.cand_y[at] = sh.entries[i].y;
      sh.cand_w[at] = ex2(sh.entries[i].y - m);
      sh.cand_at[at] = static_cast<int>(i);
      ++at;
    }
    __syncthreads();
    // Candidate c: count and mass strictly above it (the rest above the interval is in limits).
    for (unsigned c = t; c < undecided; c += kChunkThreads) {
      const float yc = sh.cand_y[c];
      unsigned above = 0;
      float mass = 0.0f;
      for (unsigned j = 0; j < undecided; ++j) {
        if (sh.cand_y[j] > yc) {
          ++above;
          mass += sh.cand_w[j];
        }
      }
      sh.state[sh.cand_at[c]] = (yc >= m || !sh.limits.reached(above, mass)) ? 1 : 0;
    }
  }
  __syncthreads();

  unsigned long long mine = 0;
  for (unsigned i = first; i < last; ++i)
    if (sh.state[i] == 1) mine += draw_weight(sh.entries[i].y, m);
  unsigned long long total;
  const unsigned long long before = sh.block.scan(mine, total);
  const uint4 bits = philox(seed, static_cast<uint32_t>(row), 0u);
  const unsigned long long target = __umul64hi((static_cast<unsigned long long>(bits.x) << 32) | bits.y, total);
  if (mine > 0 && before <= target && target < before + mine) {
    unsigned long long acc = before;
    for (unsigned i = first; i < last; ++i) {
      if (sh.state[i] != 1) continue;
      acc += draw_weight(sh.entries[i].y, m);
      if (acc > target) {
        samples[row] = sh.entries[i].index;
        break;
      }
    }
  }
}

// No limit binds: a chunk by its mass, then a token of it by weight.
__device__ void draw_whole_row(ChunkShared& sh, const float* row_ptr, int vocab, int chunks, float s, bool vec,
                               float m, int64_t* samples, int row, uint64_t seed) {
  const int t = threadIdx.x;
  const uint4 bits = philox(seed, static_cast<uint32_t>(row), 1u);
  if (t < 32) {
    const float z = t < chunks ? sh.chunk_z[t] : 0.0f;
    float incl = z;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const float up = __shfl_up_sync(kFull, incl, o);
      if (t >= o) incl += up;
    }
    const float target = unit_uniform(bits.z) * __shfl_sync(kFull, incl, 31);
    const unsigned hits = __ballot_sync(kFull, z > 0.0f && incl > target);
    const unsigned nonzero = __ballot_sync(kFull, z > 0.0f);
    if (t == 0) sh.pick = hits ? __ffs(hits) - 1 : 31 - __clz(nonzero);
  }
  __syncthreads();
  const int chunk = sh.pick;
  float y[kPerThread];
  load_tokens<kPerThread, kChunkThreads>(row_ptr + chunk * kChunk, min(kChunk, vocab - chunk * kChunk), s, vec, y);
  const int e = draw_in_block(sh.block, y, -FLT_MAX, m, bits);
  if (e >= 0) samples[row] = chunk * kChunk + token_index<kChunkThreads>(e);
}

// Hands the row to kernel 2 with the search so far.
__device__ void defer_row(ChunkShared& sh, const Workspace& ws, int batch, int row) {
  if (threadIdx.x == 0) {
    const Limits& l = sh.limits;
    const unsigned at = atomicAdd(&ws.arrivals[batch], 1u);
    ws.pending[at] = Pending{row, l.k_limit, l.has_p, l.count_above, sh.m, l.limit_mass, l.mass_above,
                             sh.lo, sh.hi, sh.inside, {0u, 0u}};
  }
}

__device__ void decide_row(ChunkShared& sh, const Workspace& ws, const float* row_ptr, const int* top_k,
                           const float* top_p, int batch, int row, int vocab, int chunks, float s, bool vec,
                           int64_t* samples, uint64_t seed) {
  const int t = threadIdx.x;
  const size_t first_slot = static_cast<size_t>(row) * chunks;
  // The row's scalars from the chunks' mails; lane c reads chunk c's.
  if (t < 32) {
    ChunkMail mail{-INFINITY, 0.0f, 0.0f, 0u, -1, 0u, {0u, 0u}};
    if (t < chunks) mail = load_record(ws.mails + first_slot + t);
    const bool valid = mail.m > -INFINITY;
    const float m = warp_max(valid ? mail.m : -INFINITY);
    const float anchor = floorf(m * kBinsPerOctave);
    const float scale = valid ? ex2(mail.m - m) : 0.0f;
    const float zc = valid ? mail.z * scale : 0.0f;
    const float z = warp_sum(zc);
    const unsigned total = __reduce_add_sync(kFull, valid ? mail.count : 0u);
    const bool exact =
        __all_sync(kFull, !valid || fabsf(mail.anchor) < kExactAnchor) && fabsf(anchor) < kExactAnchor;
    unsigned incl = valid ? mail.listed : 0u;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const unsigned up = __shfl_up_sync(kFull, incl, o);
      if (t >= o) incl += up;
    }
    if (t < chunks) {
      sh.shift[t] = valid ? anchor - mail.anchor : 0.0f;
      sh.scale[t] = scale;
      sh.chunk_z[t] = zc;
      sh.cutoff[t] = mail.cutoff;
      sh.list_begin[t + 1] = incl;
    }
    if (t == 0) {
      const int k = top_k[row];
      const float p = top_p[row];
      sh.list_begin[0] = 0;
      sh.m = m;
      sh.anchor = anchor;
      sh.total = total;
      sh.exact = exact && m < INFINITY;
      sh.limits = Limits{(k <= 0 || k >= vocab) ? vocab + 1 : k, p < 1.0f, p * z, 0u, 0.0f};
    }
  }
  __syncthreads();
  const float m = sh.m;
  if (!(m > -INFINITY)) {  // no finite logit: nothing to sample from
    if (t == 0) samples[row] = 0;
    return;
  }
  if (sh.limits.k_limit > vocab && !sh.limits.has_p) {
    draw_whole_row(sh, row_ptr, vocab, chunks, s, vec, m, samples, row, seed);
    return;
  }
  if (!sh.exact) {  // the whole float range, split by kernel 2
    if (t == 0) {
      sh.lo = -FLT_MAX;
      sh.hi = INFINITY;
      sh.inside = sh.total;
    }
    defer_row(sh, ws, batch, row);
    return;
  }

  // The merged totals on the row's grid: chunk c's bin j is the row's bin j + shift[c].
  search_level<kChunkWarps>(
      sh.limits,
      [&](int bin, int c) {
        const int local = c < chunks ? bin - static_cast<int>(sh.shift[c]) : -1;
        if (local < 0) return Prefix{0.0f, 0u};
        Prefix p = load_prefix(ws.tables + (first_slot + c) * kBins + local);
        p.mass *= sh.scale[c];
        return p;
      },
      sh.level, sh.hit);
  const int bin = sh.hit.bin;
  if (t < 32) {
    // A chunk's list reaches b* when it holds every token of its bins down to b*.
    const int local = t < chunks ? bin - static_cast<int>(sh.shift[t]) : -1;
    const bool covered = __all_sync(kFull, local < 0 || local <= sh.cutoff[t]) && bin < kBins;
    if (t == 0) {
      sh.covered = covered;
      sh.all_kept = false;
      sh.single_value = false;
      sh.limits.count_above = sh.hit.count[0];
      sh.limits.mass_above = sh.hit.mass[0];
      if (bin < kBins) {
        sh.lo = (sh.anchor - bin) / kBinsPerOctave;
        sh.hi = (sh.anchor - bin + 1.0f) / kBinsPerOctave;
        sh.inside = sh.hit.count[1] - sh.hit.count[0];
      } else if (sh.total >= static_cast<unsigned>(sh.limits.k_limit) || sh.limits.has_p) {
        sh.lo = -FLT_MAX;  // below the binned range
        sh.hi = (sh.anchor - (kBins - 1)) / kBinsPerOctave;
        sh.inside = sh.total - sh.hit.count[0];
      } else {
        sh.all_kept = true;  // neither limit binds on these tokens
      }
    }
  }
  __syncthreads();
  if (sh.all_kept) {
    draw_whole_row(sh, row_ptr, vocab, chunks, s, vec, m, samples, row, seed);
  } else if (sh.covered) {
    decide_from_lists(sh, ws, first_slot, chunks, m, samples, row, seed);
  } else {
    defer_row(sh, ws, batch, row);
  }
}

__global__ void __launch_bounds__(kChunkThreads, 4)
    chunk_kernel(const float* __restrict__ logits, int64_t row_stride, const int* __restrict__ top_k,
                 const float* __restrict__ top_p, const float* __restrict__ temperature,
                 int64_t* __restrict__ samples, int batch, int vocab, int chunks, uint64_t seed, int vec,
                 Workspace ws) {
  __shared__ ChunkShared sh;
  const int t = threadIdx.x;
  const int row = blockIdx.x / chunks, chunk = blockIdx.x % chunks;
  const int begin = chunk * kChunk;
  const int len = min(kChunk, vocab - begin);
  const size_t slot = static_cast<size_t>(row) * chunks + chunk;
  const float* row_ptr = logits + row * row_stride;
  const float s = kLog2e / temperature[row];
  D2K_PHASE_START();
  for (int b = t; b < kBins; b += kChunkThreads) {
    sh.bin_count[b] = 0;
    sh.bin_mass[b] = 0;
  }
  float y[kPerThread];
  load_tokens<kPerThread, kChunkThreads>(row_ptr + begin, len, s, vec != 0, y);
  float lane_max[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};  // four chains, not one
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) lane_max[e & 3] = fmaxf(lane_max[e & 3], y[e]);
  const float m_c = sh.block.max(fmaxf(fmaxf(lane_max[0], lane_max[1]), fmaxf(lane_max[2], lane_max[3])));
  const bool any = m_c > -INFINITY;
  // Post this chunk's maximum for the row; any posted value is at most the row's maximum m.
  if (t == 0 && any) atomicMax(&ws.row_max[row], float_key(m_c));
  D2K_PHASE(0);

  // The chunk's softmax sum while the other chunks post their maxima.
  float zs[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  unsigned count = 0;
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    zs[e & 3] += ex2(y[e] - m_c);
    count += y[e] > -INFINITY;
  }
  if (t == 0) sh.posted_max = any ? fmaxf(m_c, key_float(__ldcg(&ws.row_max[row]))) : -INFINITY;
  const float z = sh.block.sum((zs[0] + zs[1]) + (zs[2] + zs[3]));  // its barriers publish posted_max
  unsigned total_count;
  sh.block.scan(count, total_count);

  // Bins of 1/16 octave on the grid floor(16 y), anchored at the chunk's maximum, down to 16
  // octaves below the largest maximum posted: with M <= m, every token of the row's top 16
  // octaves is binned, and the bins below `deepest` hold only tokens the row never bins.
  // Beyond the exact bin range nothing is binned: the decider hands such rows to kernel 2.
  const float anchor = floorf(m_c * kBinsPerOctave);
  const float posted_anchor = floorf(sh.posted_max * kBinsPerOctave);
  const bool binnable = any && fabsf(anchor) < kExactAnchor && fabsf(posted_anchor) < kExactAnchor;
  const int deepest = binnable ? static_cast<int>(fminf(kBins - 1.0f, anchor - (posted_anchor - kBins))) : -1;
  const float edge = deepest >= 0 ? (anchor - deepest) / kBinsPerOctave : INFINITY;
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    if (y[e] >= edge) {
      const float grid = floorf(y[e] * kBinsPerOctave);
      const int bin = static_cast<int>(anchor - grid);
      atomicAdd(&sh.bin_count[bin], 1u);
      atomicAdd(&sh.bin_mass[bin],
                static_cast<unsigned>(ex2(y[e] - (grid + 1.0f) / kBinsPerOctave) * kMassUnit + 0.5f));
    }
  }
  __syncthreads();
  D2K_PHASE(1);

  // The running totals, and the list: every token of the top bins whose running count fits.
  Prefix* table = ws.tables + slot * kBins;
  unsigned fitting = 0;
  publish_histogram(sh.block, sh.bin_count, sh.bin_mass,
                    [&](int b) { return ex2((anchor - b + 1.0f) / kBinsPerOctave - m_c) * kMassUnitInverse; },
                    [&](int b, Prefix p) {
                      table[b] = p;
                      fitting += p.count <= kListCap;
                    });
  unsigned fitting_bins;
  sh.block.scan(fitting, fitting_bins);
  const int cutoff = min(static_cast<int>(fitting_bins) - 1, deepest);  // bins past deepest are unbinned
  const float list_lo = any && cutoff >= 0 ? (anchor - cutoff) / kBinsPerOctave : INFINITY;
  unsigned mine = 0;
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) mine += y[e] >= list_lo;
  unsigned listed;
  unsigned at = sh.block.scan(mine, listed);
  Candidate* list = ws.lists + slot * kListCap;
#pragma unroll
  for (int e = 0; e < kPerThread; ++e)
    if (y[e] >= list_lo) list[at++] = Candidate{y[e], begin + token_index<kChunkThreads>(e)};
  if (t == 0) ws.mails[slot] = ChunkMail{m_c, anchor, any ? z : 0.0f, total_count, cutoff, listed, {0u, 0u}};
  D2K_PHASE(2);

  // The last CTA of the row to get here decides it. The barrier orders every thread's writes
  // before thread 0's fence, which releases them with its arrival (and acquires the others').
  __syncthreads();
  if (t == 0) {
    __threadfence();
    sh.last = atomicAdd(&ws.arrivals[row], 1u) == static_cast<unsigned>(chunks - 1);
    __threadfence();
  }
  __syncthreads();
  if (!sh.last) return;
  decide_row(sh, ws, row_ptr, top_k, top_p, batch, row, vocab, chunks, s, vec != 0, samples, seed);
  D2K_PHASE(3);
}

// ---------------------------------------------------------------------------------------------
// Kernel 2: a cluster of 16 CTAs per deferred row, each holding a 1/16 slice in registers.

struct SliceShared {
  Block<kSliceWarps> block;
  unsigned bin_count[kBins];
  unsigned bin_mass[kBins];
  Prefix published[2][kBins];            // by level parity; read remotely
  float above;                           // this slice's mass with y >= hi; read remotely
  Candidate candidates[kResolveCap];     // read remotely
  unsigned n_candidates;                 // read remotely
  LevelScratch level;
  LevelHit hit;
  Limits limits;
  float rank_above[kRanks];
  float lo, hi;
  unsigned inside;
  int single_value;
  unsigned offsets[kRanks + 1];
  float cand_y[kResolveCap];
  float cand_w[kResolveCap];
  int cand_index[kResolveCap];
  int cand_rank[kResolveCap];
  int cand_kept[kResolveCap];
  int draw_rank, draw_kind, draw_token;
};

__global__ void __launch_bounds__(kSliceThreads, 2)
    resolve_kernel(const float* __restrict__ logits, int64_t row_stride, const float* __restrict__ temperature,
                   int64_t* __restrict__ samples, int batch, int vocab, uint64_t seed, int vec, Workspace ws) {
  __shared__ SliceShared sh;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int t = threadIdx.x;
  const int begin = rank * kSlice;
  const int len = max(0, min(kSlice, vocab - begin));
  const unsigned pending = __ldcg(ws.arrivals + batch);
  sh.bin_count[t] = 0;
  sh.bin_mass[t] = 0;
  int parity = 0;
  __syncthreads();

  for (unsigned i = blockIdx.x / kRanks; i < pending; i += gridDim.x / kRanks) {
    D2K_PHASE_START();
    const Pending p = load_record(ws.pending + i);
    const int row = p.row;
    const float m = p.m;
    float y[kSlicePerThread];
    load_tokens<kSlicePerThread, kSliceThreads>(logits + row * row_stride + begin, len, kLog2e / temperature[row],
                                                vec != 0, y);
    float above = 0.0f;
#pragma unroll
    for (int e = 0; e < kSlicePerThread; ++e)
      if (y[e] >= p.hi) above += ex2(y[e] - m);
    above = sh.block.sum(above);
    if (t == 0) {
      sh.above = above;
      sh.limits = Limits{p.k_limit, p.has_p, p.limit_mass, p.count_above, p.mass_above};
      sh.lo = p.lo;
      sh.hi = p.hi;
      sh.inside = p.inside;
      sh.single_value = 0;
    }
    cluster.sync();
    if (t < kRanks) sh.rank_above[t] = *cluster.map_shared_rank(&sh.above, t);
    __syncthreads();

    // Split the interval by the bits of y until its tokens fit the candidate list or it holds
    // one value; every CTA takes the same decisions from the same merged totals.
    while (sh.inside > kResolveCap && !sh.single_value) {
      const RadixSplit split(sh.lo, sh.hi, m);
      const float lo = sh.lo, hi = sh.hi;
#pragma unroll
      for (int e = 0; e < kSlicePerThread; ++e) {
        if (y[e] >= lo && y[e] < hi) {
          const unsigned d = split.bin(y[e]);
          atomicAdd(&sh.bin_count[d], 1u);
          atomicAdd(&sh.bin_mass[d], split.fixed_mass(y[e], d));
        }
      }
      __syncthreads();
      publish_histogram(sh.block, sh.bin_count, sh.bin_mass, [&](int d) { return split.unit(d); },
                        [&](int d, Prefix q) { sh.published[parity][d] = q; });
      cluster.sync();
      search_level<kSliceWarps>(
          sh.limits,
          [&](int bin, int source) {
            return source < kRanks ? cluster.map_shared_rank(&sh.published[parity][0], source)[bin]
                                   : Prefix{0.0f, 0u};
          },
          sh.level, sh.hit);
      parity ^= 1;
      const int bin = sh.hit.bin;
      if (t < kRanks) sh.rank_above[t] += sh.hit.source_mass[0][t];
      if (t == 0) {
        sh.limits.count_above += sh.hit.count[0];
        sh.limits.mass_above += sh.hit.mass[0];
        if (bin < kBins) {
          bool single;
          split.interval(bin, sh.lo, sh.hi, single);
          sh.inside = sh.hit.count[1] - sh.hit.count[0];
          sh.single_value = single;
        } else {  // rounding left the limit unreached inside: all of the interval is kept
          sh.hi = lo;
          sh.inside = 0;
        }
      }
      __syncthreads();
    }
    // One value with too many tokens to list is kept or dropped as a whole (value rule).
    if (sh.inside > kResolveCap) {
      const bool kept = sh.lo >= m || !sh.limits.reached(0u, 0.0f);
      __syncthreads();
      if (kept && t < kRanks) sh.rank_above[t] += sh.hit.source_mass[1][t] - sh.hit.source_mass[0][t];
      if (t == 0) {
        sh.inside = 0;
        if (kept) sh.hi = sh.lo;
      }
      __syncthreads();
    }

    // Candidates: this CTA's tokens in the interval, in thread order.
    const float lo = sh.lo, hi = sh.hi;
    const unsigned inside = sh.inside;
    if (inside > 0) {
      unsigned mine = 0;
#pragma unroll
      for (int e = 0; e < kSlicePerThread; ++e) mine += (y[e] >= lo && y[e] < hi);
      unsigned listed;
      unsigned at = sh.block.scan(mine, listed);
#pragma unroll
      for (int e = 0; e < kSlicePerThread; ++e) {
        if (y[e] >= lo && y[e] < hi && at < kResolveCap) {
          sh.candidates[at] = Candidate{y[e], begin + token_index<kSliceThreads>(e)};
          ++at;
        }
      }
      if (t == 0) sh.n_candidates = min(listed, static_cast<unsigned>(kResolveCap));
    }
    cluster.sync();

    // Gather every CTA's candidates in rank order and decide each exactly.
    if (t < 32) {
      const unsigned n = (inside > 0 && t < kRanks) ? *cluster.map_shared_rank(&sh.n_candidates, t) : 0u;
      unsigned incl = n;
#pragma unroll
      for (int o = 1; o < kRanks; o <<= 1) {
        const unsigned up = __shfl_up_sync(kFull, incl, o);
        if (t >= o) incl += up;
      }
      if (t < kRanks) sh.offsets[t + 1] = min(incl, static_cast<unsigned>(kResolveCap));
      if (t == 0) sh.offsets[0] = 0;
    }
    __syncthreads();
    const int n_cand = static_cast<int>(sh.offsets[kRanks]);
    if (t < n_cand) {
      int r = 0;
      while (sh.offsets[r + 1] <= static_cast<unsigned>(t)) ++r;
      const Candidate c = cluster.map_shared_rank(&sh.candidates[0], r)[t - sh.offsets[r]];
      sh.cand_y[t] = c.y;
      sh.cand_w[t] = ex2(c.y - m);
      sh.cand_index[t] = c.index;
      sh.cand_rank[t] = r;
    }
    __syncthreads();
    if (t < n_cand) {
      const float yt = sh.cand_y[t];
      unsigned count = 0;
      float mass = 0.0f;
      for (int j = 0; j < n_cand; ++j) {
        if (sh.cand_y[j] > yt) {
          ++count;
          mass += sh.cand_w[j];
        }
      }
      sh.cand_kept[t] = yt >= m || !sh.limits.reached(count, mass);
    }
    __syncthreads();

    // The draw, first stage (warp 0, the same in every CTA): lane 2r + 1 holds rank r's kept
    // candidates, lane 2r its tokens above the interval; a lane by mass, then, for candidates,
    // one of them by weight.
    static_assert(2 * kRanks == 32, "one lane per (rank, part)");
    if (t < 32) {
      const int lane = t, r = lane >> 1;
      float part = 0.0f;
      if (lane & 1) {
        for (int j = 0; j < n_cand; ++j)
          if (sh.cand_kept[j] && sh.cand_rank[j] == r) part += sh.cand_w[j];
      } else {
        part = sh.rank_above[r];
      }
      float incl = part;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const float up = __shfl_up_sync(kFull, incl, o);
        if (lane >= o) incl += up;
      }
      const uint4 bits = philox(seed, static_cast<uint32_t>(row), 2u);
      const float target = unit_uniform(bits.x) * __shfl_sync(kFull, incl, 31);
      const unsigned hits = __ballot_sync(kFull, part > 0.0f && incl > target);
      const unsigned nonzero = __ballot_sync(kFull, part > 0.0f);
      const int chosen = hits ? __ffs(hits) - 1 : (nonzero ? 31 - __clz(nonzero) : -1);
      if (lane == 0) {
        sh.draw_rank = chosen < 0 ? -1 : chosen >> 1;
        sh.draw_kind = chosen & 1;
      }
      if (lane == chosen && (lane & 1)) {
        const float inner = unit_uniform(bits.y) * part;
        float acc = 0.0f;
        int token = -1;
        for (int j = 0; j < n_cand; ++j) {
          if (sh.cand_kept[j] && sh.cand_rank[j] == r) {
            token = sh.cand_index[j];
            acc += sh.cand_w[j];
            if (acc > inner) break;
          }
        }
        sh.draw_token = token;
      }
    }
    __syncthreads();
    const int owner = sh.draw_rank;
    if (owner == rank) {
      if (sh.draw_kind == 1) {
        if (t == 0) samples[row] = sh.draw_token;
      } else {  // one of this slice's tokens above the interval
        const int e = draw_in_block(sh.block, y, hi, m, philox(seed, static_cast<uint32_t>(row), 3u));
        if (e >= 0) samples[row] = begin + token_index<kSliceThreads>(e);
      }
    } else if (owner < 0 && rank == 0 && t == 0) {
      samples[row] = 0;  // unreachable for finite logits: the maximum is always kept
    }
    if (rank == 0) D2K_PHASE(4);
  }
  cluster.sync();  // no CTA leaves while another may still read its candidates
}

bool is_dtype(const DLTensor& t, uint8_t code, uint8_t bits) {
  return t.dtype.code == code && t.dtype.bits == bits && t.dtype.lanes == 1;
}

bool is_vector(const DLTensor& t, int64_t n) { return t.ndim == 1 && t.shape[0] == n && t.strides[0] == 1; }

// The checks both entry points make; 0 and the shapes when the call is one this sampler takes.
int32_t check_call(const d2k_native_call* call, int64_t& batch, int64_t& vocab, char* error, size_t error_size) {
  if (call->num_inputs != 4 || call->num_outputs != 1) {
    std::snprintf(error, error_size, "expected logits, top_k, top_p, temperature and one output");
    return 1;
  }
  const DLTensor& logits = call->inputs[0];
  if (logits.ndim != 2 || !is_dtype(logits, kDLFloat, 32) || logits.strides[1] != 1) {
    std::snprintf(error, error_size, "logits must be float32 [batch, vocab] with contiguous rows");
    return 1;
  }
  batch = logits.shape[0];
  vocab = logits.shape[1];
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
  if (vocab <= 0 || vocab > kMaxVocab || batch > INT32_MAX / ((kMaxVocab + kChunk - 1) / kChunk)) {
    std::snprintf(error, error_size, "vocab %lld is outside (0, %d] (or batch %lld too large)",
                  static_cast<long long>(vocab), kMaxVocab, static_cast<long long>(batch));
    return 1;
  }
  return 0;
}

int64_t chunks_of(int64_t vocab) { return (vocab + kChunk - 1) / kChunk; }

}  // namespace

int32_t d2k_native_abi_version(void) { return D2K_NATIVE_ABI_VERSION; }

int32_t d2k_native_setup(const d2k_native_call* call, uint64_t* workspace_bytes, char* error, size_t error_size) {
  int64_t batch, vocab;
  if (check_call(call, batch, vocab, error, error_size) != 0) return 1;
  *workspace_bytes = WorkspaceLayout(batch, chunks_of(vocab)).bytes;
  return 0;
}

int32_t d2k_native_run(const d2k_native_call* call, char* error, size_t error_size) {
  int64_t batch, vocab;
  if (check_call(call, batch, vocab, error, error_size) != 0) return 1;
  const d2k_native_param* seed = d2k_native_find_param(call, "seed");
  if (seed == nullptr || seed->kind != D2K_NATIVE_INT64) {
    std::snprintf(error, error_size, "seed must be an integer");
    return 1;
  }
  if (batch == 0) return 0;
  const int64_t chunks = chunks_of(vocab);
  const WorkspaceLayout layout(batch, chunks);
  if (call->workspace == nullptr || call->workspace_bytes < layout.bytes) {
    std::snprintf(error, error_size, "the workspace has %llu bytes, %zu needed (d2k_native_setup)",
                  static_cast<unsigned long long>(call->workspace_bytes), layout.bytes);
    return 1;
  }
  const Workspace ws = layout.carve(call->workspace, batch);
  const DLTensor& logits = call->inputs[0];
  const auto* logits_data = static_cast<const float*>(logits.data);
  const auto* top_k = static_cast<const int*>(call->inputs[1].data);
  const auto* top_p = static_cast<const float*>(call->inputs[2].data);
  const auto* temperature = static_cast<const float*>(call->inputs[3].data);
  auto* samples = static_cast<int64_t*>(call->outputs[0].data);
  const auto stream = static_cast<cudaStream_t>(call->stream);
  // 16-byte loads need 16-byte aligned rows that end on a 16-byte boundary.
  const int vec = reinterpret_cast<uintptr_t>(logits_data) % 16 == 0 && logits.strides[0] % 4 == 0 && vocab % 4 == 0;

  // Once: the non-portable cluster size for kernel 2, and how many of its clusters fit.
  static int resolve_clusters = 0;
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute cluster_dims = {};
  cluster_dims.id = cudaLaunchAttributeClusterDimension;
  cluster_dims.val.clusterDim.x = kRanks;
  cluster_dims.val.clusterDim.y = 1;
  cluster_dims.val.clusterDim.z = 1;
  config.blockDim = dim3(kSliceThreads, 1, 1);
  config.attrs = &cluster_dims;
  config.numAttrs = 1;
  cudaError_t status = cudaSuccess;
  if (resolve_clusters == 0) {
    status = cudaFuncSetAttribute(resolve_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (status == cudaSuccess) {
      config.gridDim = dim3(kRanks, 1, 1);
      status = cudaOccupancyMaxActiveClusters(&resolve_clusters, resolve_kernel, &config);
    }
    if (status == cudaSuccess && resolve_clusters <= 0) {
      std::snprintf(error, error_size, "no cluster of %d CTAs fits", kRanks);
      return 1;
    }
  }
  if (status == cudaSuccess)
    status = cudaMemsetAsync(ws.arrivals, 0, sizeof(unsigned) * WorkspaceLayout::cleared_words(batch), stream);
  if (status == cudaSuccess) {
    chunk_kernel<<<static_cast<unsigned>(batch * chunks), kChunkThreads, 0, stream>>>(
        logits_data, logits.strides[0], top_k, top_p, temperature, samples, static_cast<int>(batch),
        static_cast<int>(vocab), static_cast<int>(chunks), static_cast<uint64_t>(seed->int64_value), vec, ws);
    status = cudaGetLastError();
  }
  if (status == cudaSuccess) {
    const int64_t grid_clusters = batch < resolve_clusters ? batch : resolve_clusters;
    config.gridDim = dim3(static_cast<unsigned>(grid_clusters * kRanks), 1, 1);
    config.stream = stream;
    status = cudaLaunchKernelEx(&config, resolve_kernel, logits_data, static_cast<int64_t>(logits.strides[0]),
                                temperature, samples, static_cast<int>(batch), static_cast<int>(vocab),
                                static_cast<uint64_t>(seed->int64_value), vec, ws);
  }
  if (status != cudaSuccess) {
    std::snprintf(error, error_size, "CUDA error: %s", cudaGetErrorString(status));
    return 1;
  }
  return 0;
}

#ifdef D2K_PHASE_TIMES
// Profiling build only: the phases the counters stand for, in counter order.
extern "C" D2K_NATIVE_EXPORT const char* d2k_sampling_phase_names(void) {
  return "kernel 1: load + chunk max;kernel 1: histogram pass;kernel 1: totals, list, mail;kernel 1: the row's decision (last CTA);kernel 2: one deferred row (CTA 0)";
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
