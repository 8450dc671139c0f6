// Expert in CUDA C++: sort-free top-k/top-p sampling that reads every logit once, at streaming
// speed, and decides each row from a short list of its largest tokens. Written against d2k's
// native ABI (include/d2k/native_abi.h, docs/native-abi.md).
//
// Per row: s = log2(e) / temperature, y_j = logits[j] * s, M = max_j y_j, w_j = 2^(y_j - M) (the
// largest weight is exactly 1), Z = sum_j w_j. A token of weight v is kept when count(w > v) < k
// and mass(w > v) < p * Z, so the kept set is an upper set {w >= theta}.
//
// Kernel 1 (chunk_kernel), one CTA per 8192-token chunk, no CTA waits for another or publishes
// anything but plain stores (the kernel boundary orders them for kernel 2):
//   The chunk is read once into shared memory (cp.async, 32 KB, six CTAs per SM, so many chunks
//   are in flight while others compute) and scaled to y in place. Its maximum m_c and its mass
//   s_c = sum 2^(y - m_c) are recorded, and it lists (y, token) for every token with
//   y >= L_c = m_c - depth, the depth picked from a 1/8 sample so the list fits kListCap entries:
//   deep enough for 2k + 16 tokens on a top-k row, as deep as fits otherwise. One pass gives the
//   mass and a bit per token below the level (the sign of y - L_c, shifted in), so the list is
//   written from the bits, and padded with -inf to kListCap. Three block barriers in all: the
//   maximum, the sample, the sums. For a row without a small top-k (a "wide" row) the record also
//   holds each warp's share of the mass, and every thread's mass is stored, so that kernel 2 can
//   draw from the chunk with two short loads. Lists and records are stored with an L2 keep hint,
//   so the logits streaming through L2 do not push them out before kernel 2 reads them.
// Kernel 2 (decide_kernel): CTA r < B decides row r with 512 threads; the CTAs after them verify.
//   A decider reads its records and lists in one round trip: a row with a small top-k copies its
//   lists whole by one bulk copy, a wide row's weighing warps load them into registers. With L =
//   max_c L_c every token with y >= L is listed. If the listed tokens at or above L already hold k
//   tokens or a mass of p * Z, no token below L can be kept (more than k tokens, or too much mass,
//   lie above it), so the kept set lies in the list, and the row is sampled from the list by pivot
//   rejection: draw a token in proportion to weight from a set known to contain the kept set,
//   accept it when kept, otherwise narrow the set to the tokens above it (and above a midpoint,
//   when that is not kept either) and draw again. The first draw is tested once; a row that drops
//   it is flat where its kept set ends, so its listed weights are binned by their bits (one pass,
//   shared atomics on integer masses), and the next draw comes from above the bin where the kept
//   set ends: kept at once when it lies in a bin above that one, else the start of the rounds. A
//   greedy row (k = 1) draws once among the tokens of weight 1. A wide row instead starts from
//   kProposals exact draws from the whole row, made by four warps as soon as the records are in,
//   each reading them itself: a chunk by mass, a warp of it by the recorded warp masses, a thread
//   of that warp by the stored thread masses (copied for the whole row by one bulk copy, in flight
//   with the records), then a token of that thread's share (one load of 32 logits). Meanwhile the
//   other twelve warps load the list and weigh it into shared memory, so its completeness is known
//   when the proposals are: the row is settled or flagged at once, and one pass over the weights
//   then gives the counts above every proposal; the first kept proposal is the sample, and the
//   rounds start only when all are dropped. A row without limits takes its first proposal without
//   copying its lists.
//   A wide row whose list is too short (a flat row whose kept set holds thousands of tokens) is
//   flagged as soon as that is known. The verifier CTAs take its spans of two chunks as work items
//   (one chunk read into registers, the other by a bulk copy into shared memory, both at once):
//   each counts and sums the weights strictly above each proposal over its span, and the last one
//   accepts the first kept proposal. If none is kept (rarely: each proposal is kept with the kept
//   set's probability mass), that CTA samples the row itself by pivot rejection above the largest
//   rejected proposal. A verifier waits only for deciders, whose indices are lower, and stops once
//   every row is settled (flagged, or known never to be): one 64-bit word counts both, so a single
//   load tells it. Tokens drawn by rejection from any
//   superset of the kept set, with fresh randomness each time, follow the kept distribution
//   exactly.
// Both kernels are launched by programmatic dependent launch: their CTAs start while the kernel
// before them finishes, compute what needs only the inputs, and wait for its results; kernel 1
// lets kernel 2 start only after its own wait, so every input is complete when kernel 2 reads it.
//
// Draws are inverse CDFs, each "the first entry whose running mass exceeds the target": a warp by
// the warps' masses, a lane by the lanes' (warp scans), then an element in the thread's own order.
// A weight is always computed by the same expression from the same float, so "strictly above the
// candidate" never counts the candidate. Every sum that feeds a decision has a fixed order, so the
// samples are a function of the inputs and the seed.
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <d2k/native_abi.h>

#ifdef D2K_PHASE_TIMES
// Profiling build only: cycles of each phase, summed by thread 0 of the CTAs that ran it, with the
// number of times each phase ended 16 places further (events add no cycles).
__device__ unsigned long long d2k_phase_cycles[32];
__device__ __forceinline__ void d2k_phase(long long& mark, int i) {
  if (threadIdx.x == 0) {
    const long long now = clock64();
    atomicAdd(&d2k_phase_cycles[i], static_cast<unsigned long long>(now - mark));
    atomicAdd(&d2k_phase_cycles[16 + i], 1ull);
    mark = now;
  }
}
__device__ __forceinline__ void d2k_event(int i) {
  if (threadIdx.x == 0) atomicAdd(&d2k_phase_cycles[16 + i], 1ull);
}
#define D2K_MARK(name) long long name = clock64()
#define D2K_PHASE(mark, i) d2k_phase(mark, i)
#define D2K_EVENT(i) d2k_event(i)
#else
#define D2K_MARK(name) \
  do {                 \
  } while (0)
#define D2K_PHASE(mark, i) D2K_MARK(mark)
#define D2K_EVENT(i) D2K_MARK(i)
#endif

namespace {

constexpr int kThreads = 256;  // kernels 1 and 3: a CTA per chunk
constexpr int kWarps = kThreads / 32;
constexpr int kDecideThreads = 512;  // kernel 2: a CTA per row; its passes are short and latency-bound
constexpr int kMaxWarps = kDecideThreads / 32;
constexpr int kQuadsPerThread = 8;
constexpr int kPerThread = 4 * kQuadsPerThread;
constexpr int kChunk = kThreads * kPerThread;  // tokens per chunk CTA
constexpr int kListCap = 384;                  // listed tokens per chunk
constexpr int kMaxChunks = 32;                 // one warp reads a row's chunk records
constexpr int kMaxBatch = 65535;               // rows are kernel 1's grid y
constexpr int kProposals = 4;
// A verifier's work item: a span of two chunks of a flagged row, read in one pass, so that a
// verifier per SM covers up to 2 * sms / chunks flagged rows in one round.
constexpr int kChunksPerSpan = 2;
constexpr int kMaxLevels = kProposals + 1;  // pivots of one pass: the proposals and a midpoint
// Candidate list depths below the chunk maximum, in octaves, as 64 bins of depth + 1 by its
// binary exponent and top three mantissa bits: an eighth of an octave of depth + 1 wide, so an
// eighth of an octave of depth near the maximum and 16 octaves at depth 127; the last bin also
// holds everything deeper, -inf included. A bin costs three integer operations from the float.
constexpr int kDepthBins = 64;
// The bin of y in a chunk of maximum m, given m_plus_1 = m + 1.
__device__ __forceinline__ int depth_bin(float m_plus_1, float y) {
  const int b = static_cast<int>(__float_as_uint(m_plus_1 - y) >> 20) - (127 << 3);
  return min(max(b, 0), kDepthBins - 1);
}
// The depth at the upper edge of a bin: 2^(bin / 8) * (1 + (bin % 8 + 1) / 8) - 1, exactly (a
// mantissa field of 8 carries into the exponent, which is 2^(bin / 8 + 1)).
__device__ __forceinline__ float depth_edge(int bin) {
  return __uint_as_float((((bin >> 3) + 127) << 23) + (((bin & 7) + 1) << 20)) - 1.0f;
}
constexpr int kSampleEvery = 8;                  // the depth is picked from every 8th token
constexpr int kMaxRounds = 96;  // never reached: the bracket reaches adjacent floats long before
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kBelowOne = 0x1.fffffep-1f;  // the largest float below 1
constexpr unsigned kFull = 0xffffffffu;

// Random streams: (row, step, who) is unique per use.
constexpr uint32_t kStepDecide = 0;  // who 0: the list draw, 1: the proposals' chunks, 2: their tokens
constexpr uint32_t kStepRounds = 1;  // + round, list rounds
constexpr uint32_t kStepBoundary = 0x10000;  // a list row's draw above its weight bins' boundary
constexpr uint32_t kStepRowDraw = 0x20000;  // + round, rounds over the whole row

struct alignas(16) ChunkRecord {
  float m;      // chunk maximum of y
  float mass;   // sum of 2^(y - m) over the chunk, the warp masses added in order
  float level;  // every token with y >= level is listed; +inf when none could be
  int listed;   // list entries; the rest of the chunk's kListCap slots hold -inf
  float warp_mass[kWarps];  // a wide row's: each warp's share of the mass, its last lane's inclusive sum
};
static_assert(sizeof(ChunkRecord) == 48, "a record is three float4s");

struct Proposal {
  int token;
  float y;
};

// A row whose list was too short, with its proposals, for the verifiers (16-byte aligned: they
// read it through L2 as four int4s).
struct alignas(16) FlaggedRow {
  int row;
  int k_limit;
  int no_p;
  float m;
  float limit_mass;
  float scale;
  int token[kProposals];
  float weight[kProposals];
};

// Cleared by kernel 1 (the workspace is undefined at every call), used by kernel 2. kRowsFlagged
// hands out flag slots. kProgress (two slots, one 64-bit word) counts the rows that will flag no
// more (flagged, or known not to need it) in its high half and the flags published in its low
// half, both moved by one atomic, so a verifier learns from one load both that every row is
// settled and how many were flagged.
enum Counter { kRowsFlagged, kNextItem, kProgress, kCounters = kProgress + 2 };
constexpr unsigned long long kOneSettled = 1ull << 32;

struct Workspace {
  unsigned* verify_arrivals;  // [batch] spans of flagged row i verified
  unsigned* flag_ready;       // [batch] 1 once flagged[i] is written
  unsigned* counters;         // [kCounters]
  ChunkRecord* records;       // [batch][chunks]
  float* list_y;              // [batch][chunks][kListCap]
  int* list_token;            // [batch][chunks][kListCap]
  FlaggedRow* flagged;        // [batch]
  float* partials;            // [batch][spans][2 * kProposals]: counts (as float) and masses
  float* thread_mass;         // [batch][chunks][kThreads] a wide row's: each chunk thread's mass
};

__device__ __forceinline__ unsigned long long* progress_of(const Workspace& ws) {
  return reinterpret_cast<unsigned long long*>(ws.counters + kProgress);  // 8-byte aligned: the array is 256
}

struct WorkspaceLayout {
  static constexpr int kArrays = 9;
  size_t offsets[kArrays] = {};
  size_t bytes = 0;
  WorkspaceLayout(int64_t batch, int64_t chunks) {
    const size_t sizes[kArrays] = {
        sizeof(unsigned) * batch,
        sizeof(unsigned) * batch,
        sizeof(unsigned) * kCounters,
        sizeof(ChunkRecord) * batch * chunks,
        sizeof(float) * batch * chunks * kListCap,
        sizeof(int) * batch * chunks * kListCap,
        sizeof(FlaggedRow) * batch,
        sizeof(float) * batch * chunks * 2 * kProposals,
        sizeof(float) * batch * chunks * kThreads,
    };
    for (int i = 0; i < kArrays; ++i) {
      offsets[i] = bytes;
      bytes += (sizes[i] + 255) / 256 * 256;
    }
  }
  Workspace carve(void* base) const {
    char* b = static_cast<char*>(base);
    return Workspace{reinterpret_cast<unsigned*>(b + offsets[0]),   reinterpret_cast<unsigned*>(b + offsets[1]),
                     reinterpret_cast<unsigned*>(b + offsets[2]),   reinterpret_cast<ChunkRecord*>(b + offsets[3]),
                     reinterpret_cast<float*>(b + offsets[4]),      reinterpret_cast<int*>(b + offsets[5]),
                     reinterpret_cast<FlaggedRow*>(b + offsets[6]), reinterpret_cast<float*>(b + offsets[7]),
                     reinterpret_cast<float*>(b + offsets[8])};
  }
};

// What both kernels know of the call.
struct Problem {
  const float* logits;
  int64_t row_stride;
  const int* top_k;
  const float* top_p;
  const float* temperature;
  int64_t* samples;
  int batch;
  int vocab;
  int chunks;
  int vectorized;  // rows are 16-byte aligned and a multiple of 4 tokens
  uint64_t seed;
};

// Shared scratch of the block-wide helpers of the decision and verification. Each array is
// written before a helper's barrier and read after it; a barrier of the next helper (every draw
// ends with one) separates those reads from the next writes.
struct Scratch {
  float warp_incl[kMaxLevels][kMaxWarps];
  int warp_count[kMaxLevels][kMaxWarps];
  int pick_index;
  float pick_weight;
  int flag;
};

// Shared scratch of a chunk CTA. Each reduction has its own array, written before one barrier
// and read by every thread after it; the list counts alternate between two arrays because a
// shallower retry writes them again (its write follows the barrier after the earlier reads).
struct ChunkScratch {
  float warp_max[kWarps];
  float warp_mass[kWarps];   // each warp's mass, as its last lane's inclusive sum
  int warp_count[2][kWarps];  // each warp's listed tokens
  int depth_bins[kDepthBins];  // sampled tokens per depth bin
};

__device__ __forceinline__ float4 uniforms(uint64_t seed, uint32_t row, uint32_t step, uint32_t who) {
  // 24-bit uniforms in [0, 1).
  const uint4 bits = curand_Philox4x32_10(make_uint4(row, step, who, 0x243F6A88u),
                                          make_uint2(static_cast<uint32_t>(seed),
                                                     static_cast<uint32_t>(seed >> 32)));
  constexpr float kUnit = 1.0f / 16777216.0f;
  return make_float4((bits.x >> 8) * kUnit, (bits.y >> 8) * kUnit, (bits.z >> 8) * kUnit,
                     (bits.w >> 8) * kUnit);
}

// Stores of what kernel 2 reads (lists and records), marked to stay in L2 while the logits stream
// through it.
__device__ __forceinline__ uint64_t keep_in_l2() {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ void store_kept(float* to, float v, uint64_t policy) {
  asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" ::"l"(to), "f"(v), "l"(policy) : "memory");
}
__device__ __forceinline__ void store_kept(int* to, int v, uint64_t policy) {
  asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;" ::"l"(to), "r"(v), "l"(policy) : "memory");
}
__device__ __forceinline__ void store_kept(float4* to, float4 v, uint64_t policy) {
  asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(to), "f"(v.x), "f"(v.y), "f"(v.z),
               "f"(v.w), "l"(policy)
               : "memory");
}

// A shared-memory barrier for one bulk copy, whose first phase completes with the issuing thread's
// arrival and the copy's bytes. One thread, followed by a block barrier before anyone waits on it;
// reset_copy_barrier makes a used one new again, once every thread has waited on it.
__device__ __forceinline__ void init_copy_barrier(uint64_t* barrier) {
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n"
               "fence.mbarrier_init.release.cluster;\n" ::"r"(bar)
               : "memory");
}
__device__ __forceinline__ void reset_copy_barrier(uint64_t* barrier) {
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
  init_copy_barrier(barrier);
}

// One bulk copy (the copy engine, one instruction) of `bytes` from global into shared memory, on
// a new copy barrier. One thread; both addresses 16-byte aligned, bytes a multiple of 16.
// The CTA's earlier reads of `to` must come before it by a block barrier; the proxy fence then
// orders them before the copy engine's writes.
__device__ __forceinline__ void bulk_copy_to_shared(void* to, const void* from, unsigned bytes, uint64_t* barrier) {
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(to));
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(bar),
               "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(from), "r"(bytes), "r"(bar)
               : "memory");
}

// Waits until the bulk copy on `barrier` has landed (its first phase), also when it is not issued
// yet. Any thread, after the block barrier that follows the barrier's initialization.
__device__ __forceinline__ void wait_bulk_copy(uint64_t* barrier) {
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  unsigned done = 0;
  while (!done) {
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar)
                 : "memory");
  }
}

// Flags between CTAs of kernel 2, at GPU scope: a release orders this thread's earlier writes
// before it, an acquire orders later reads after it, without a full fence. (The verifiers poll
// with volatile loads and one fence: acquire loads in their loop pushed kernel 2 past its 64
// registers.)
__device__ __forceinline__ void store_release(unsigned* to, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(to), "r"(v) : "memory");
}
__device__ __forceinline__ void add_release(unsigned long long* to, unsigned long long v) {
  asm volatile("red.release.gpu.global.add.u64 [%0], %1;" ::"l"(to), "l"(v) : "memory");
}
// A settled row hands nothing over (its count only lets the verifiers stop), so its add needs no
// release, which cost a decision 0.1-0.25 us (b1, b64).
__device__ __forceinline__ void add_relaxed(unsigned long long* to, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" ::"l"(to), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned fetch_add_acq_rel(unsigned* to, unsigned v) {
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(to), "r"(v) : "memory");
  return old;
}

// Programmatic dependent launch: both kernels are launched so that their CTAs may start while
// the kernel before them still runs (once all of its CTAs have signalled, or exited); each waits
// here before it reads what that kernel wrote, which is then complete and visible.
__device__ __forceinline__ void let_next_kernel_start() { asm volatile("griddepcontrol.launch_dependents;"); }
__device__ __forceinline__ void wait_for_previous_kernel() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

// 2^x by the hardware unit alone (results below 2^-126 flush to 0); every weight and mass uses
// it, so all comparisons see the same bits.
__device__ __forceinline__ float ex2(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

__device__ __forceinline__ float weight_of(float y, float m) { return y == -INFINITY ? 0.0f : ex2(y - m); }
// A list slot's weight in a row of maximum m and level L: 0 below L (a chunk may list deeper than
// the row's level, and the padding is -inf).
__device__ __forceinline__ float listed_weight(float y, float level, float m) { return y >= level ? ex2(y - m) : 0.0f; }

template <class T>
__device__ __forceinline__ T warp_inclusive_sum(T v, int lane) {
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const T up = __shfl_up_sync(kFull, v, offset);
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

// The first lane whose running mass exceeds the target, else the last lane with mass, else -1.
__device__ __forceinline__ int first_crossing(bool has_mass, float running, float target) {
  const unsigned hits = __ballot_sync(kFull, has_mass && running > target);
  const unsigned positive = __ballot_sync(kFull, has_mass);
  if (hits != 0) return __ffs(hits) - 1;
  return positive != 0 ? 31 - __clz(positive) : -1;
}

// The maximum over the block, known to every thread after one barrier.
__device__ float block_max(float v, float (&warp_maxima)[kWarps]) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_max(v);
  if (lane == 0) warp_maxima[warp] = v;
  __syncthreads();
  float m = warp_maxima[0];
#pragma unroll
  for (int w = 1; w < kWarps; ++w) m = fmaxf(m, warp_maxima[w]);
  return m;
}

// The list depth, a depth bin, picked from the sampled tokens' bins (every warp picks the same):
// for a top-k row (k_limit <= kListCap) the shallowest depth whose estimate holds 2k + 16 tokens,
// otherwise (or when that is deeper) the deepest whose estimate fits 7/8 of the list. Estimates
// grow with depth, so the bins that fit are a prefix and those that hold enough a suffix, and
// counting them gives the bin.
__device__ int pick_depth(const int* depth_bins, int k_limit) {
  const int lane = threadIdx.x & 31;
  // Lane j: the estimated tokens within depth_edge(2j + 1), and within depth_edge(2j).
  const int odd = depth_bins[2 * lane + 1];
  const int through_odd = kSampleEvery * warp_inclusive_sum(depth_bins[2 * lane] + odd, lane);
  const int through_even = through_odd - kSampleEvery * odd;
  auto bins_where = [](bool even, bool odd_bin) {
    return __popc(__ballot_sync(kFull, even)) + __popc(__ballot_sync(kFull, odd_bin));
  };
  const int fitting = bins_where(8 * through_even <= 7 * kListCap, 8 * through_odd <= 7 * kListCap);
  int depth = max(fitting - 1, 0);
  if (k_limit <= kListCap) {
    const int enough = bins_where(through_even >= 2 * k_limit + 16, through_odd >= 2 * k_limit + 16);
    if (enough > 0) depth = min(depth, kDepthBins - enough);
  }
  return depth;
}

// A chunk's list count and this thread's first slot in the list.
struct ListSlots {
  int listed;
  int offset;
};

// The exclusive prefix of the threads' counts and their total, known after one barrier.
__device__ ListSlots scan_counts(int count, int (&warp_counts)[kWarps]) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int incl = warp_inclusive_sum(count, lane);
  if (lane == 31) warp_counts[warp] = incl;
  __syncthreads();
  ListSlots out{0, incl - count};
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const int c = warp_counts[w];
    if (w < warp) out.offset += c;
    out.listed += c;
  }
  return out;
}

// The warp where `target` falls by a chunk record's warp masses, added one after another as
// kernel 1 adds them into the chunk's mass: the first whose running mass exceeds it, else the
// last with mass (-1 when none has mass); *before receives the mass of the warps before it.
__device__ __forceinline__ int warp_of_target(const float (&warp_mass)[kWarps], float target, float* before) {
  int pick = -1, last = -1;
  float pick_before = 0.0f, last_before = 0.0f, running = 0.0f;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    if (warp_mass[w] > 0.0f) {
      if (pick < 0 && running + warp_mass[w] > target) {
        pick = w;
        pick_before = running;
      }
      last = w;
      last_before = running;
    }
    running += warp_mass[w];
  }
  *before = pick < 0 ? last_before : pick_before;
  return pick < 0 ? last : pick;
}

// Inverse-CDF choice at each of Levels levels, one barrier: mass[l] >= 0 and count[l] are this
// thread's sums, u[l] in [0, 1). Afterwards every thread knows each level's totals and the warp
// where u[l] times the total falls by the warps' masses in order (-1 when nothing has mass), with
// the part of the target inside that warp; each thread keeps its mass and its inclusive sum in
// its warp, from which the chosen warp picks the lane (pick_lane).
template <int Levels>
struct Choice {
  float total[Levels];
  int count[Levels];
  int warp[Levels];
  float in_warp[Levels];
  float mine[Levels];
  float incl[Levels];
};

template <int Levels>
__device__ Choice<Levels> choose_warps(const float (&mass)[Levels], const int (&count)[Levels],
                                       const float (&u)[Levels], Scratch& s) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  Choice<Levels> out;
#pragma unroll
  for (int l = 0; l < Levels; ++l) {
    out.mine[l] = mass[l];
    out.incl[l] = warp_inclusive_sum(mass[l], lane);
    const int c = __reduce_add_sync(kFull, count[l]);
    if (lane == 31) s.warp_incl[l][warp] = out.incl[l];
    if (lane == 0) s.warp_count[l][warp] = c;
  }
  __syncthreads();
  // Lane w holds warp w's total: one warp scan finds the warp for every thread at once.
  const int warps = blockDim.x >> 5;
#pragma unroll
  for (int l = 0; l < Levels; ++l) {
    const float mass_w = lane < warps ? s.warp_incl[l][lane] : 0.0f;
    const float running = warp_inclusive_sum(mass_w, lane);
    const float up = __shfl_up_sync(kFull, running, 1);  // every lane takes part
    const float before_w = lane == 0 ? 0.0f : up;
    out.total[l] = __shfl_sync(kFull, running, 31);
    out.count[l] = __reduce_add_sync(kFull, lane < warps ? s.warp_count[l][lane] : 0);
    const float target = u[l] * out.total[l];
    out.warp[l] = first_crossing(mass_w > 0.0f, running, target);
    out.in_warp[l] = target - __shfl_sync(kFull, before_w, max(out.warp[l], 0));
  }
  return out;
}

// The block's totals at each of Levels levels, known to every thread after one barrier (butterfly
// sums, so every lane holds the same bits). For tests that draw nothing.
template <int Levels>
struct Totals {
  float mass[Levels];
  int count[Levels];
};

template <int Levels>
__device__ Totals<Levels> block_totals(const float (&mass)[Levels], const int (&count)[Levels], Scratch& s) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int l = 0; l < Levels; ++l) {
    const float m = warp_sum(mass[l]);
    const int c = __reduce_add_sync(kFull, count[l]);
    if (lane == 0) {
      s.warp_incl[l][warp] = m;
      s.warp_count[l][warp] = c;
    }
  }
  __syncthreads();
  const int warps = blockDim.x >> 5;
  Totals<Levels> out;
#pragma unroll
  for (int l = 0; l < Levels; ++l) {
    out.mass[l] = warp_sum(lane < warps ? s.warp_incl[l][lane] : 0.0f);
    out.count[l] = __reduce_add_sync(kFull, lane < warps ? s.warp_count[l][lane] : 0);
  }
  return out;
}

// One level of a Choice, selected without indexing its arrays at run time (which would put
// them in local memory).
struct LevelChoice {
  int warp;
  float in_warp;
  float mine;
  float incl;
};

template <int Levels>
__device__ __forceinline__ LevelChoice level_of(const Choice<Levels>& c, int l) {
  LevelChoice out{c.warp[0], c.in_warp[0], c.mine[0], c.incl[0]};
#pragma unroll
  for (int i = 1; i < Levels; ++i) {
    if (i == l) out = LevelChoice{c.warp[i], c.in_warp[i], c.mine[i], c.incl[i]};
  }
  return out;
}

// Called by the whole chosen warp: the lane whose running mass first exceeds the warp's part of
// the target (else its last lane with mass), and *lane_target, the part left for that lane's
// own elements.
__device__ int pick_lane(const LevelChoice& c, float* lane_target) {
  const int lane = threadIdx.x & 31;
  const float up = __shfl_up_sync(kFull, c.incl, 1);  // every lane takes part
  const float before = lane == 0 ? 0.0f : up;
  const int chosen = max(first_crossing(c.mine > 0.0f, c.incl, c.in_warp), 0);
  *lane_target = c.in_warp - __shfl_sync(kFull, before, chosen);
  return chosen;
}

// ---- Sources of weights for the pivot-rejection rounds ------------------------------------
// Thread t owns `per` elements of the source, its k-th at element_of(t, k): each warp owns a
// contiguous range and its lanes interleave in it, so passes read memory coalesced, and the
// warp of a chosen thread can rescan that thread's elements together.
struct Segment {
  int per;
  explicit __device__ Segment(int n) : per((n + blockDim.x - 1) / blockDim.x) {}
  __device__ int element_of(int thread, int k) const { return (thread >> 5) * 32 * per + (thread & 31) + 32 * k; }
};

// The listed tokens of a row, as weights in shared memory (0 for tokens below the row's level).
struct ListSource {
  const float* weights;
  int n;
  __device__ float weight(int i) const { return weights[i]; }
};

// A whole row, weights computed from the logits.
struct RowSource {
  const float* x;
  float scale;
  float m;
  int n;
  __device__ float weight(int i) const { return weight_of(__fmul_rn(__ldg(x + i), scale), m); }
};

// The draw of one level of a Choice (masses of the weights above `floor`): the chosen warp picks
// the lane, then scans that thread's segment for the element where the running mass first
// exceeds the lane's part of the target (else the segment's last such element). Returns it in
// s.pick_index / s.pick_weight (-1 / 0 when nothing has mass) after a barrier.
template <class Source>
__device__ void rescan_segment(const Source& src, const LevelChoice& choice, float floor, Scratch& s) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (choice.warp >= 0 && warp == choice.warp) {
    const Segment seg(src.n);
    float my_target;
    const int chosen_thread = 32 * warp + pick_lane(choice, &my_target);
    float carry = 0.0f, pick_w = 0.0f, last_w = 0.0f;
    int pick = -1, last = -1;
    for (int base = 0; base < seg.per; base += 32) {
      const int i = seg.element_of(chosen_thread, base + lane);
      const float w = base + lane < seg.per && i < src.n ? src.weight(i) : 0.0f;
      const float e = w > floor ? w : 0.0f;
      const float running = carry + warp_inclusive_sum(e, lane);
      const unsigned hits = __ballot_sync(kFull, e > 0.0f && running > my_target);
      const unsigned positive = __ballot_sync(kFull, e > 0.0f);
      if (hits != 0) {
        const int at = __ffs(hits) - 1;
        pick = __shfl_sync(kFull, i, at);
        pick_w = __shfl_sync(kFull, w, at);
        break;
      }
      if (positive != 0) {
        const int at = 31 - __clz(positive);
        last = __shfl_sync(kFull, i, at);
        last_w = __shfl_sync(kFull, w, at);
      }
      carry = __shfl_sync(kFull, running, 31);
    }
    if (pick < 0) {
      pick = last;
      pick_w = last_w;
    }
    if (lane == 0) {
      s.pick_index = pick;
      s.pick_weight = pick_w;
    }
  }
  if (choice.warp < 0 && threadIdx.x == 0) {
    s.pick_index = -1;
    s.pick_weight = 0.0f;
  }
  __syncthreads();
}

// What every thread holds of a row's limits.
struct Limits {
  int k_limit;   // INT_MAX: no top-k limit
  int no_p;
  float limit_mass;  // p * Z
  __device__ bool keeps(int count_above, float mass_above) const {
    return count_above < k_limit && (no_p || mass_above < limit_mass);
  }
};

// The listed weights of a row with a small top-k, in bins of 1/16 of an octave's mantissa range by
// their bits (weights lie in (0, 1]; bin 0 holds the largest). Weights below 2^-16 fall in the
// last bin, which is left empty (its tokens are kept only when the bins above reach neither
// limit, and then the bins are not used). Counts and masses are added by shared atomics, masses
// as integers of 2^-18 (truncated): integer sums do not depend on the order of the atomics, so the
// boundary is a function of the inputs. One pass finds the bin where the kept set ends.
constexpr int kWeightBins = 256;
constexpr float kMassUnits = 262144.0f;  // 2^18 per unit weight: 12288 listed weights fit 32 bits
constexpr float kMassSlack = 1e-3f;      // far above the float rounding of the exact test's sums
__device__ __forceinline__ int weight_bin(float w) {
  return static_cast<int>(min((0x3f800000u - __float_as_uint(w)) >> 19, kWeightBins - 1u));
}
// Every weight of bin b or a higher bin lies strictly above this (0 for the last bin).
__device__ __forceinline__ float below_bin(int b) {
  return b >= kWeightBins - 1 ? 0.0f : __uint_as_float(0x3f800000u - ((b + 1u) << 19));
}
struct WeightBins {
  unsigned count[kWeightBins];
  unsigned mass[kWeightBins];
};
__device__ __forceinline__ void add_to_bins(WeightBins& bins, float w) {
  const int b = weight_bin(w);  // w = 0 falls in the last bin too
  if (b < kWeightBins - 1) {
    atomicAdd(&bins.count[b], 1u);
    atomicAdd(&bins.mass[b], static_cast<unsigned>(w * kMassUnits));
  }
}

// Where the kept set ends, worked out by each warp from the bins (no barrier): the first bin,
// from the top, where the listed tokens reach k, or surely reach p * Z (beyond the slack and the
// truncation). No token below it is kept; every token above it is, when `above_kept` (its mass
// is surely below p * Z). bin -1: the listed tokens above the last bin reach neither limit for sure.
struct Boundary {
  int bin;
  float floor;      // below_bin(bin): every kept token weighs more
  float kept_from;  // when above_kept, a weight known to be kept: the lowest of the bin above (1 when none)
  bool above_kept;
};
__device__ Boundary find_boundary(const WeightBins& bins, const Limits& lim) {
  const int lane = threadIdx.x & 31;
  constexpr int kPerLane = kWeightBins / 32;
  unsigned count = 0, mass = 0;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    count += bins.count[kPerLane * lane + i];
    mass += bins.mass[kPerLane * lane + i];
  }
  const float reach_mass = lim.no_p ? INFINITY : lim.limit_mass * (1.0f + kMassSlack) * kMassUnits;
  const unsigned k = static_cast<unsigned>(lim.k_limit);
  const unsigned count_incl = warp_inclusive_sum(count, lane), mass_incl = warp_inclusive_sum(mass, lane);
  const unsigned hits = __ballot_sync(kFull, count_incl >= k || static_cast<float>(mass_incl) >= reach_mass);
  Boundary out{-1, 0.0f, 1.0f, false};
  if (hits == 0) return out;
  const int at = __ffs(hits) - 1;
  // Lane `at` walks its bins from the count and mass above them.
  unsigned count_above = count_incl - count, mass_above = mass_incl - mass;
  int bin = kPerLane * lane + kPerLane - 1;
  for (int i = 0; i < kPerLane; ++i) {
    const unsigned c = count_above + bins.count[kPerLane * lane + i];
    const unsigned m = mass_above + bins.mass[kPerLane * lane + i];
    if (c >= k || static_cast<float>(m) >= reach_mass) {
      bin = kPerLane * lane + i;
      break;
    }
    count_above = c;
    mass_above = m;
  }
  out.bin = __shfl_sync(kFull, bin, at);
  count_above = __shfl_sync(kFull, count_above, at);
  mass_above = __shfl_sync(kFull, mass_above, at);
  out.floor = below_bin(out.bin);
  out.kept_from = out.bin == 0 ? 1.0f : __uint_as_float(__float_as_uint(below_bin(out.bin - 1)) + 1u);
  // Each truncated mass lost less than one unit.
  out.above_kept = lim.no_p || static_cast<float>(mass_above) + static_cast<float>(count_above) <
                                   lim.limit_mass * (1.0f - kMassSlack) * kMassUnits;
  return out;
}

// This thread's count and mass of the source's weights strictly above each pivot, over the
// elements it owns (Segment), in a fixed order.
template <int Levels, class Source>
__device__ void sums_above(const Source& src, const float (&pivot)[Levels], float (&mass)[Levels], int (&count)[Levels]) {
  const Segment seg(src.n);
#pragma unroll
  for (int l = 0; l < Levels; ++l) {
    mass[l] = 0.0f;
    count[l] = 0;
  }
  // Four elements loaded before any is added, so their latencies overlap; elements past the end
  // weigh 0, which is above no pivot (pivots are >= 0). An element above no pivot costs one
  // comparison (most of a list lies below a row's proposals).
  float lowest = pivot[0];
#pragma unroll
  for (int l = 1; l < Levels; ++l) lowest = fminf(lowest, pivot[l]);
  constexpr int kBatch = 4;
  for (int k0 = 0; k0 < seg.per; k0 += kBatch) {
    float w[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int i = seg.element_of(threadIdx.x, k0 + j);
      w[j] = k0 + j < seg.per && i < src.n ? src.weight(i) : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      if (w[j] > lowest) {
#pragma unroll
        for (int l = 0; l < Levels; ++l) {
          if (w[j] > pivot[l]) {
            mass[l] += w[j];
            ++count[l];
          }
        }
      }
    }
  }
}

// One draw, in proportion to weight, among the source's weights above `floor`, with uniform u.
// Returns the index (-1 when nothing lies above floor); *w receives its weight, and *count and
// *mass the count and mass above floor.
template <class Source>
__device__ int draw_above(const Source& src, float floor, float u, Scratch& s, float* w, int* count,
                          float* mass) {
  const float pivots[1] = {floor};
  float m[1];
  int c[1];
  sums_above(src, pivots, m, c);
  const float uu[1] = {u};
  const Choice<1> choice = choose_warps<1>(m, c, uu, s);
  rescan_segment(src, level_of(choice, 0), floor, s);
  *w = s.pick_weight;
  *count = choice.count[0];
  *mass = choice.total[0];
  const int pick = s.pick_index;
  __syncthreads();
  return pick;
}

// Pivot rejection from candidate `cand` (weight cand_w, drawn from a set known to hold the kept
// set; `high` a weight known to be kept, 1 when none better is known). Each round counts and sums
// the weights strictly above the candidate (p0) and above the geometric midpoint p1 of p0 and
// high; a kept candidate is the sample, otherwise the next candidate is drawn above p0 (p1 kept,
// which becomes high) or above p1. Returns the sample's index in the source.
template <class Source>
__device__ int pivot_rounds(const Source& src, const Limits& lim, int cand, float cand_w, float high, uint64_t seed,
                            int row, uint32_t step_base, Scratch& s) {
  float p0 = cand_w;
  float p1 = p0 > 0.0f ? fminf(fmaxf(sqrtf(p0 * high), p0), high) : 0.5f * high;
  for (int round = 1; round <= kMaxRounds; ++round) {
    const float u = uniforms(seed, row, step_base + round, 0).x;  // computed during the pass
    const float pivots[2] = {p0, p1};
    float mass[2];
    int count[2];
    sums_above(src, pivots, mass, count);
    const float uu[2] = {u, u};
    const Choice<2> choice = choose_warps<2>(mass, count, uu, s);
    D2K_EVENT(7);
    if (lim.keeps(choice.count[0], choice.total[0])) return cand;
    const bool keep1 = lim.keeps(choice.count[1], choice.total[1]);
    const int level = keep1 ? 0 : 1;
    if (keep1) high = p1;
    rescan_segment(src, level_of(choice, level), level == 0 ? p0 : p1, s);
    if (s.pick_index >= 0) {
      cand = s.pick_index;
      p0 = s.pick_weight;
    }
    __syncthreads();
    p1 = p0 > 0.0f ? fminf(fmaxf(sqrtf(p0 * high), p0), high) : 0.5f * high;
  }
  return cand;  // only non-finite input gets here
}

// Samples a whole row in one CTA: a draw above `floor` (a weight known not to be kept, 0 when
// none is known), then pivot rounds. `fallback` is returned when nothing lies above floor. Rare
// (rows that their lists cannot decide), so kept out of line: inlined at both callers it pushed
// kernel 2 past its 64 registers. It takes no Problem, whose address would copy it to the stack.
__device__ __noinline__ int sample_whole_row(const float* row_logits, int vocab, uint64_t seed, int row, float scale,
                                             float m, Limits lim, float floor, int fallback, Scratch& s) {
  const RowSource src{row_logits, scale, m, vocab};
  float w;
  int count;
  float mass;
  const float u = uniforms(seed, row, kStepRowDraw, 0).x;
  const int cand = draw_above(src, floor, u, s, &w, &count, &mass);
  if (cand < 0) return fallback;
  return pivot_rounds(src, lim, cand, w, 1.0f, seed, row, kStepRowDraw, s);
}

// The row's top-k as a count limit: INT_MAX when k <= 0 or k >= vocab (no limit).
__device__ __forceinline__ int k_limit_of(const Problem& pb, int row) {
  const int k = pb.top_k[row];
  return (k <= 0 || k >= pb.vocab) ? INT_MAX : k;
}

// Whether a row may be handed to the verifiers: a wide row (proposals from the whole row) with a
// limit. Deciders and verifiers must agree on it, or the verifiers stop early or wait forever.
__device__ __forceinline__ bool row_may_flag(const Problem& pb, int row, int k_limit) {
  return k_limit > kListCap && (k_limit != INT_MAX || pb.top_p[row] < 1.0f);
}

__device__ Limits limits_of(const Problem& pb, int row, int k_limit, float z) {
  const float p = pb.top_p[row];
  Limits lim;
  lim.k_limit = k_limit;
  lim.no_p = p >= 1.0f;
  lim.limit_mass = p * z;
  return lim;
}

// Starts copying this thread's share of a chunk (raw logits; -inf past the row's end) into the
// chunk buffer: float4 q of thread t at buffer[t + q * kThreads], by cp.async when rows are
// aligned. wait_staged() completes this thread's copies.
__device__ __forceinline__ void stage_chunk(const Problem& pb, int row, int chunk, float4* buffer) {
  const float* src = pb.logits + row * pb.row_stride + chunk * kChunk;
  const int len = min(kChunk, pb.vocab - chunk * kChunk);
  const float4 none = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
  if (pb.vectorized) {
    // One address pair per thread; the float4s sit at fixed offsets from it.
    const float* from = src + 4 * threadIdx.x;
    const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(buffer + threadIdx.x));
    auto copy = [&](int q) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to + 16 * q * kThreads),
                   "l"(from + 4 * q * kThreads)
                   : "memory");
    };
    if (len == kChunk) {  // every chunk but a row's last
#pragma unroll
      for (int q = 0; q < kQuadsPerThread; ++q) copy(q);
    } else {
#pragma unroll
      for (int q = 0; q < kQuadsPerThread; ++q) {
        if (4 * (threadIdx.x + q * kThreads) < len)
          copy(q);
        else
          buffer[threadIdx.x + q * kThreads] = none;
      }
    }
  } else {
#pragma unroll
    for (int q = 0; q < kQuadsPerThread; ++q) {
      const int at = threadIdx.x + q * kThreads;
      float4 f = none;
      if (4 * at < len) f.x = __ldg(src + 4 * at);
      if (4 * at + 1 < len) f.y = __ldg(src + 4 * at + 1);
      if (4 * at + 2 < len) f.z = __ldg(src + 4 * at + 2);
      if (4 * at + 3 < len) f.w = __ldg(src + 4 * at + 3);
      buffer[at] = f;
    }
  }
}

__device__ __forceinline__ void wait_staged() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

__device__ __forceinline__ float component(const float4& f, int c) { return c == 0 ? f.x : c == 1 ? f.y : c == 2 ? f.z : f.w; }

// y = logit * scale for four logits (-inf stays -inf): every reader of the logits scales them by
// this expression, so all compare the same y.
__device__ __forceinline__ float4 scaled(const float4& x, float scale) {
  return make_float4(__fmul_rn(x.x, scale), __fmul_rn(x.y, scale), __fmul_rn(x.z, scale), __fmul_rn(x.w, scale));
}

// Scales this thread's staged share in place to y and returns its maximum, after wait_staged().
__device__ __forceinline__ float scale_staged(float scale, float4* buffer) {
  float local_max = -INFINITY;
#pragma unroll
  for (int q = 0; q < kQuadsPerThread; ++q) {
    float4& f = buffer[threadIdx.x + q * kThreads];
    const float4 y = scaled(f, scale);
    f = y;
    local_max = fmaxf(local_max, fmaxf(fmaxf(y.x, y.y), fmaxf(y.z, y.w)));
  }
  return local_max;
}

// The mass of a float4 of y relative to m, as every pass that sums a thread's share adds it
// (mass += quad_mass(...) over q in order), so a share's mass has the same bits wherever it is
// computed. ex2(-inf) = 0.
__device__ __forceinline__ float quad_mass(const float4& y, float m) {
  return ex2(y.x - m) + ex2(y.y - m) + ex2(y.z - m) + ex2(y.w - m);
}

// Shifts into `below` one bit per component of y, in order: the sign of y - level, which is set
// exactly when y < level (a difference that flushes to zero keeps its sign). Two instructions a
// token: the subtraction and a funnel shift.
__device__ __forceinline__ unsigned shift_in_below(unsigned below, const float4& y, float level) {
  below = __funnelshift_l(__float_as_uint(y.x - level), below, 1);
  below = __funnelshift_l(__float_as_uint(y.y - level), below, 1);
  below = __funnelshift_l(__float_as_uint(y.z - level), below, 1);
  return __funnelshift_l(__float_as_uint(y.w - level), below, 1);
}

// Float4s t + q * Stride (q < Quads) of the 4 * Quads * Stride tokens from a chunk's first, as y,
// read straight from the logits (-inf past the row's end).
template <int Quads, int Stride>
__device__ __forceinline__ void load_scaled_quads(const Problem& pb, int row, int chunk, int t, float scale,
                                                  float4 (&y)[Quads]) {
  const float* src = pb.logits + row * pb.row_stride + chunk * kChunk;
  const int len = min(4 * Quads * Stride, pb.vocab - chunk * kChunk);
#pragma unroll
  for (int q = 0; q < Quads; ++q) {
    const int at = 4 * (t + q * Stride);
    float4 f = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    if (pb.vectorized && at + 4 <= len) {
      f = __ldcg(reinterpret_cast<const float4*>(src + at));
    } else {
      if (at < len) f.x = __ldcg(src + at);
      if (at + 1 < len) f.y = __ldcg(src + at + 1);
      if (at + 2 < len) f.z = __ldcg(src + at + 2);
      if (at + 3 < len) f.w = __ldcg(src + at + 3);
    }
    y[q] = scaled(f, scale);
  }
}

// A draw from one chunk of a wide row in proportion to weight 2^(y - m_c), made by one warp of its
// decision with uniform u: the chunk's warp where u * mass falls by the record's warp masses, that
// warp's thread by the threads' masses kernel 1 stored (a copy of them in shared memory,
// [chunk][thread]), then an element of that thread's share by the running weights, read from the
// logits (one load of 32 floats).
__device__ Proposal draw_from_chunk(const Problem& pb, const float* thread_masses, int row, int c,
                                    const ChunkRecord& r, float scale, float u) {
  const int lane = threadIdx.x & 31;
  const float target = u * r.mass;
  float before;
  const int source_warp = warp_of_target(r.warp_mass, target, &before);
  if (source_warp < 0) return Proposal{-1, -INFINITY};
  const float in_warp = target - before;
  const float mass = thread_masses[c * kThreads + 32 * source_warp + lane];
  const float incl = warp_inclusive_sum(mass, lane);
  const float up = __shfl_up_sync(kFull, incl, 1);  // every lane takes part
  const float lane_before = lane == 0 ? 0.0f : up;
  const int t_lane = max(first_crossing(mass > 0.0f, incl, in_warp), 0);
  const float in_lane = in_warp - __shfl_sync(kFull, lane_before, t_lane);
  // Element `lane` (4 q + c) of the thread's share, as kernel 1 staged and scaled it.
  const int t = 32 * source_warp + t_lane;
  const int token = c * kChunk + 4 * (t + (lane >> 2) * kThreads) + (lane & 3);
  const float x = token < pb.vocab ? __ldcg(pb.logits + row * pb.row_stride + token) : -INFINITY;
  const float y = __fmul_rn(x, scale);  // as scaled() computes it
  const float w = weight_of(y, r.m);
  const int e = first_crossing(w > 0.0f, warp_inclusive_sum(w, lane), in_lane);
  const float picked_y = __shfl_sync(kFull, y, max(e, 0));
  const int picked = __shfl_sync(kFull, token, max(e, 0));
  if (e < 0) return Proposal{-1, -INFINITY};
  return Proposal{picked, picked_y};
}

// Hands a wide row whose list is too short to the verifiers, with its kProposals exact draws from
// the whole row: the record first, then its ready flag (a verifier reads the record only after
// seeing the flag).
__device__ void flag_for_verification(const Workspace& ws, int row, const Limits& lim, float m, float scale,
                                      const Proposal (&drawn)[kProposals]) {
  D2K_EVENT(9);
  if (threadIdx.x != 0) return;
  FlaggedRow f;
  f.row = row;
  f.k_limit = lim.k_limit;
  f.no_p = lim.no_p;
  f.m = m;
  f.limit_mass = lim.limit_mass;
  f.scale = scale;
#pragma unroll
  for (int i = 0; i < kProposals; ++i) {
    f.token[i] = drawn[i].token;
    f.weight[i] = f.token[i] >= 0 ? weight_of(drawn[i].y, m) : 0.0f;
  }
  const unsigned slot = atomicAdd(&ws.counters[kRowsFlagged], 1u);
  ws.flagged[slot] = f;
  store_release(&ws.flag_ready[slot], 1u);
  add_release(progress_of(ws), kOneSettled + 1);  // the flag is out before the row counts as settled
}

// Decides a row from its chunks' records and lists (see the file comment). Every list has kListCap
// slots, padded with -inf, so the row's lists are one contiguous block, read while warp 0 reads the
// records: a single round trip to L2. A wide row's four drawing warps make its proposals while the
// other twelve load its list and weigh it, so its completeness and its proposals are known
// together. Other rows' lists are short: their listed entries are packed, as weights, into a second
// array that the draws scan.
__device__ void decide_row(const Problem& pb, const Workspace& ws, int row, float* smem, Scratch& s) {
  __shared__ float row_m, row_z, row_level, row_u;
  __shared__ int row_listed, chunk_begin[kMaxChunks + 1];
  __shared__ Proposal drawn[kProposals];  // a wide row's proposals
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  D2K_MARK(mark);
  const float temperature = pb.temperature[row];
  const int k_limit = k_limit_of(pb, row);
  const bool wide = k_limit > kListCap;  // proposals come from the whole row, not the list
  const bool no_limit = k_limit == INT_MAX && pb.top_p[row] >= 1.0f;  // the first proposal is the sample
  const bool may_flag = row_may_flag(pb, row, k_limit);
  // The uniforms, before kernel 1 is waited for: warp i < kProposals proposal i's chunk and token,
  // warp kProposals the list's draw.
  const bool draws = wide && warp < kProposals;
  float u_chunk = 0.0f, u_token = 0.0f;
  if (draws) {
    u_chunk = component(uniforms(pb.seed, row, kStepDecide, 1), warp);
    u_token = component(uniforms(pb.seed, row, kStepDecide, 2), warp);
  } else if (warp == kProposals && lane == 0) {
    row_u = uniforms(pb.seed, row, kStepDecide, 0).x;
  }
  wait_for_previous_kernel();
  // A row that cannot be flagged is settled at once, so the verifiers stop waiting early.
  if (!may_flag && threadIdx.x == 0) add_relaxed(progress_of(ws), kOneSettled);
  const ChunkRecord* rec = ws.records + static_cast<int64_t>(row) * pb.chunks;
  const int64_t list_base = static_cast<int64_t>(row) * pb.chunks * kListCap;
  const int slots = pb.chunks * kListCap;
  float* lists = smem;                 // [slots] the lists as kernel 1 wrote them (y)
  float* list_weights = smem + slots;  // [row_listed] the listed entries packed, as weights
  // Warp 0 asks for the records before the list copy is queued; so does every other warp of a wide
  // row: the drawing warps (with the warp masses) for their proposals' chunks, the weighing warps
  // for the row's maximum and level. Each works them out itself, so no warp waits for another.
  const bool weighs = wide && warp >= kProposals;
  const bool member = (warp == 0 || wide) && lane < pb.chunks;
  float4 head = make_float4(-INFINITY, 0.0f, -INFINITY, __int_as_float(0)), low = {}, high = {};
  if (member) {
    const float4* from = reinterpret_cast<const float4*>(rec + lane);
    head = __ldcg(from);
    if (draws) {
      low = __ldcg(from + 1);
      high = __ldcg(from + 2);
    }
  }
  // One bulk copy, issued after the records' loads: a wide row's chunk-thread masses, which its
  // drawing warps wait on at once (so that barrier is initialized before a block barrier here),
  // in the half of shared memory that other rows pack their weights into; or the lists of a row
  // with a small top-k (none for a row without limits), waited on after a later block barrier.
  // A wide row's weighing warps load its lists themselves: with both as bulk copies, b64 took
  // 0.1 us longer a call.
  __shared__ uint64_t lists_landed, masses_landed;
  float* thread_masses = list_weights;  // [chunks][kThreads], a wide row's
  if (threadIdx.x == 0) {
    if (wide) {
      init_copy_barrier(&masses_landed);
      bulk_copy_to_shared(thread_masses, ws.thread_mass + static_cast<int64_t>(row) * pb.chunks * kThreads,
                          sizeof(float) * pb.chunks * kThreads, &masses_landed);
    } else if (!no_limit) {
      init_copy_barrier(&lists_landed);
      bulk_copy_to_shared(lists, ws.list_y + list_base, sizeof(float) * slots, &lists_landed);
    }
  }
  if (wide) __syncthreads();
  const float scale = kLog2e / temperature;
  // A wide row's listed mass and count, by the warps that weigh its list.
  __shared__ float list_warp_mass[kMaxWarps];
  __shared__ int list_warp_count[kMaxWarps];
  if (warp == 0 || draws) {
    const float m = warp_max(head.x);
    const float mass = head.y > 0.0f ? head.y * ex2(head.x - m) : 0.0f;
    const float running = warp_inclusive_sum(mass, lane);  // the chunks' masses in order
    const float z = __shfl_sync(kFull, running, 31);
    if (warp == 0) {
      const float level = warp_max(member ? head.z : -INFINITY);
      const int incl = warp_inclusive_sum(__float_as_int(head.w), lane);
      chunk_begin[lane + 1] = incl;
      if (lane == 31) row_listed = incl;
      if (lane == 0) {
        chunk_begin[0] = 0;
        row_m = m;
        row_z = z;
        row_level = level;
      }
    }
    if (draws) {
      // Proposal `warp`: its chunk by the chunks' masses, that chunk's record from its lane.
      const int c = max(first_crossing(mass > 0.0f, running, u_chunk * z), 0);
      const ChunkRecord r{__shfl_sync(kFull, head.x, c),
                          __shfl_sync(kFull, head.y, c),
                          0.0f,
                          0,
                          {__shfl_sync(kFull, low.x, c), __shfl_sync(kFull, low.y, c), __shfl_sync(kFull, low.z, c),
                           __shfl_sync(kFull, low.w, c), __shfl_sync(kFull, high.x, c), __shfl_sync(kFull, high.y, c),
                           __shfl_sync(kFull, high.z, c), __shfl_sync(kFull, high.w, c)}};
      wait_bulk_copy(&masses_landed);
      const Proposal p = draw_from_chunk(pb, thread_masses, row, c, r, scale, u_token);
      if (lane == 0) drawn[warp] = p;
      if (warp == 0 && no_limit && lane == 0) pb.samples[row] = p.token >= 0 ? p.token : 0;
    }
  } else if (weighs && !no_limit) {
    // While the proposals are drawn: the list's slots loaded as float4s and stored as weights (0
    // below the row's level; the maximum and level as warp 0 computes them), four loaded before
    // any is weighed, with this thread's listed mass and count.
    const float m = warp_max(head.x);
    const float level = warp_max(member ? head.z : -INFINITY);
    const int stride = blockDim.x - 32 * kProposals;
    float listed_mass = 0.0f;
    int listed_count = 0;
    const float4* from = reinterpret_cast<const float4*>(ws.list_y + list_base);
    float4* to = reinterpret_cast<float4*>(lists);
    const int quads = slots / 4;
    for (int q0 = threadIdx.x - 32 * kProposals; q0 < quads; q0 += 4 * stride) {
      float4 y[4];
#pragma unroll
      for (int k = 0; k < 4; ++k)
        y[k] = q0 + k * stride < quads ? __ldcg(from + q0 + k * stride)
                                       : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        float4 w;
        w.x = listed_weight(y[k].x, level, m);
        w.y = listed_weight(y[k].y, level, m);
        w.z = listed_weight(y[k].z, level, m);
        w.w = listed_weight(y[k].w, level, m);
        if (q0 + k * stride < quads) to[q0 + k * stride] = w;
        listed_mass += (w.x + w.y) + (w.z + w.w);
        listed_count += (w.x > 0.0f) + (w.y > 0.0f) + (w.z > 0.0f) + (w.w > 0.0f);
      }
    }
    const float mass_of_warp = warp_sum(listed_mass);
    const int count_of_warp = __reduce_add_sync(kFull, listed_count);
    if (lane == 0) {
      list_warp_mass[warp] = mass_of_warp;
      list_warp_count[warp] = count_of_warp;
    }
  }
  if (no_limit) {
    D2K_EVENT(8);
    return;
  }
  // A row with a small top-k bins its listed weights if it drops its first draw; they are cleared
  // here, before a block barrier every row passes, so the binning after a drop needs no barrier
  // before its atomics.
  __shared__ WeightBins bins;
  if (!wide) reinterpret_cast<unsigned*>(&bins)[threadIdx.x] = 0u;
  static_assert(sizeof(WeightBins) == sizeof(unsigned) * kDecideThreads, "a thread clears one word");
  __syncthreads();  // the records' sums and the proposals are in (a wide row's weights too)
  if (!wide) wait_bulk_copy(&lists_landed);
  const float m = row_m;
  const Limits lim = limits_of(pb, row, k_limit, row_z);
  const int n = row_listed;
  const float level = row_level;
  const float u_list = row_u;
  // Thread 0: the token of weight j.
  auto token_of = [&](int j) {
    if (wide) return __ldcg(ws.list_token + list_base + j);
    int c = 0;
    while (c + 1 < pb.chunks && chunk_begin[c + 1] <= j) ++c;
    return __ldcg(ws.list_token + list_base + c * kListCap + (j - chunk_begin[c]));
  };
  if (wide) {
    float w[kProposals];
    bool valid = true, listed[kProposals];
#pragma unroll
    for (int i = 0; i < kProposals; ++i) {
      const Proposal pr = drawn[i];
      valid = valid && pr.token >= 0;
      w[i] = pr.token >= 0 ? weight_of(pr.y, m) : 0.0f;
      listed[i] = pr.token >= 0 && pr.y >= level;
    }
    // The list's completeness from the weighing warps' sums, in order: a complete list holds the
    // kept set, an incomplete one goes to the verifiers at once (and a settled row lets them
    // stop). Then one pass over the weights gives the counts and masses above each proposal and
    // above a midpoint p1 between the first one's weight and 1. A proposal is kept exactly when it
    // is listed and the counts above it keep it. The first kept proposal is the sample; when all
    // are dropped, the rounds go on from the list above the highest weight known to be dropped.
    float listed_mass = 0.0f;
    int listed_count = 0;
#pragma unroll
    for (int v = kProposals; v < kMaxWarps; ++v) {
      listed_mass += list_warp_mass[v];
      listed_count += list_warp_count[v];
    }
    const bool complete = listed_count >= lim.k_limit || (!lim.no_p && listed_mass >= lim.limit_mass);
    if (!complete || !valid) {
      flag_for_verification(ws, row, lim, m, scale, drawn);
      return;
    }
    if (threadIdx.x == 0) add_relaxed(progress_of(ws), kOneSettled);
    // The next call's kernel 1 may be launched from here: earlier, its waiting CTAs slowed the
    // decisions (b128 by 1.3 us); at the end, its launch was exposed (ab4.txt, ab5.txt).
    let_next_kernel_start();
    const float p1 = listed[0] ? fminf(fmaxf(sqrtf(w[0]), w[0]), 1.0f) : INFINITY;
    // Level i < kProposals: above proposal i; kProposals: above p1.
    float pivots[kMaxLevels];
#pragma unroll
    for (int i = 0; i < kProposals; ++i) pivots[i] = w[i];
    pivots[kProposals] = p1;
    const ListSource src{lists, slots};
    float mass[kMaxLevels];
    int count[kMaxLevels];
    sums_above(src, pivots, mass, count);
    D2K_PHASE(mark, 4);
    const Totals<kMaxLevels> above = block_totals<kMaxLevels>(mass, count, s);
    D2K_PHASE(mark, 5);
    int accepted = -1;
#pragma unroll
    for (int i = kProposals - 1; i >= 0; --i) {
      if (listed[i] && lim.keeps(above.count[i], above.mass[i])) accepted = i;
    }
    if (accepted >= 0) {
      if (threadIdx.x == 0) pb.samples[row] = drawn[accepted].token;
      return;
    }
    // All dropped: the next candidate comes from the list above the highest of the proposals'
    // weights and p1 (when dropped).
    const bool keep1 = listed[0] && lim.keeps(above.count[kProposals], above.mass[kProposals]);
    float floor = listed[0] && !keep1 ? p1 : w[0];
#pragma unroll
    for (int i = 1; i < kProposals; ++i) floor = fmaxf(floor, w[i]);
    __syncthreads();  // block_totals' scratch is read before draw_above writes it
    float cand_w, mass_above;
    int count_above;
    const int cand = draw_above(src, floor, u_list, s, &cand_w, &count_above, &mass_above);
    if (cand < 0) {  // nothing above the floor: only non-finite weights get here (no sample is right)
      if (threadIdx.x == 0) pb.samples[row] = drawn[0].token;
      return;
    }
    const int j = pivot_rounds(src, lim, cand, cand_w, keep1 ? p1 : 1.0f, pb.seed, row, kStepRounds, s);
    D2K_PHASE(mark, 6);
    if (threadIdx.x == 0) pb.samples[row] = token_of(j);
    return;
  } else {
    // The listed entries packed in chunk order, as weights (four read before any is written, so
    // their latencies overlap).
    for (int c = warp; c < pb.chunks; c += blockDim.x >> 5) {
      const int begin = chunk_begin[c], len = chunk_begin[c + 1] - begin;
      const float* from = lists + c * kListCap;
      for (int i0 = 0; i0 < len; i0 += 4 * 32) {
        float y[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) y[j] = i0 + 32 * j + lane < len ? from[i0 + 32 * j + lane] : -INFINITY;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (i0 + 32 * j + lane < len) list_weights[begin + i0 + 32 * j + lane] = listed_weight(y[j], level, m);
        }
      }
    }
    __syncthreads();
    D2K_PHASE(mark, 4);
    let_next_kernel_start();  // see the wide row's call
    const ListSource src{list_weights, n};
    if (lim.k_limit == 1 && level < INFINITY) {
      // Greedy: the kept set is the tokens of weight 1, the maximum (whatever p is). A finite row
      // level lies at least an eighth below M, so all of them are listed, and a draw among them in
      // proportion to weight is uniform: one pass, no rounds.
      float w_top, mass_top;
      int count_top;
      const int j = draw_above(src, kBelowOne, u_list, s, &w_top, &count_top, &mass_top);
      if (j >= 0) {
        if (threadIdx.x == 0) pb.samples[row] = token_of(j);
        return;
      }
    }
    float cand_w, mass_listed;
    int count_listed;
    const int cand = draw_above(src, 0.0f, u_list, s, &cand_w, &count_listed, &mass_listed);
    const bool complete = count_listed >= lim.k_limit || (!lim.no_p && mass_listed >= lim.limit_mass);
    D2K_PHASE(mark, 5);
    if (complete && cand >= 0) {
      // The first draw, tested once: a peaked row keeps it. A row that drops it is flat near the
      // end of its kept set, where pivot rounds narrow slowly (rows with k = 100 took 8-12 us of
      // them); its weights are binned, and the next draw comes from above the bins' boundary.
      const float first[1] = {cand_w};
      float first_mass[1];
      int first_count[1];
      sums_above(src, first, first_mass, first_count);
      const Totals<1> above = block_totals<1>(first_mass, first_count, s);
      int j = cand;
      if (!lim.keeps(above.count[0], above.mass[0])) {
        j = -1;
        const Segment seg(n);
        for (int k0 = 0; k0 < seg.per; ++k0) {
          const int i = seg.element_of(threadIdx.x, k0);
          if (i < n) add_to_bins(bins, src.weight(i));
        }
        __syncthreads();  // the bins are complete (and block_totals' scratch is read)
        const Boundary edge = find_boundary(bins, lim);
        if (edge.bin >= 0) {
          // A kept draw from above the boundary is the sample at once when it lies in a bin above
          // the boundary's; otherwise it starts the rounds.
          float w, mass_above;
          int count_above;
          const float u = uniforms(pb.seed, row, kStepBoundary, 0).x;
          const int next = draw_above(src, edge.floor, u, s, &w, &count_above, &mass_above);
          if (next >= 0) {
            j = edge.above_kept && weight_bin(w) < edge.bin
                    ? next
                    : pivot_rounds(src, lim, next, w, edge.above_kept ? edge.kept_from : 1.0f, pb.seed, row,
                                   kStepRounds, s);
          }
        }
        if (j < 0) j = pivot_rounds(src, lim, cand, cand_w, 1.0f, pb.seed, row, kStepRounds, s);
      }
      D2K_PHASE(mark, 6);
      if (threadIdx.x == 0) pb.samples[row] = token_of(j);
      return;
    }
    // A top-k row whose chunks could not list enough tokens (heavy ties): sample the whole row.
    const int token = sample_whole_row(pb.logits + row * pb.row_stride, pb.vocab, pb.seed, row, scale, m, lim, 0.0f, 0, s);
    D2K_PHASE(mark, 10);
    if (threadIdx.x == 0) pb.samples[row] = token;
    return;
  }
}

__global__ void __launch_bounds__(kThreads, 6) chunk_kernel(Problem pb, Workspace ws) {
  // The chunk as y, this thread's float4 q at buffer[threadIdx.x + q * kThreads]. 128-byte aligned:
  // a quarter warp's float4s are then one shared-memory wavefront (kernel 1 took 17 % longer when
  // its static scratch left the buffer 16 bytes off).
  extern __shared__ __align__(128) float4 buffer[];
  __shared__ ChunkScratch cs;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int chunk = blockIdx.x, row = blockIdx.y;
  D2K_MARK(mark);
  // Kernel 2 may start only once every CTA here has waited: it reads the inputs before it waits
  // for this kernel, so whatever wrote them must be complete by then.
  wait_for_previous_kernel();  // whatever wrote the inputs, or the last call's kernel 2 (the workspace)
  let_next_kernel_start();
  stage_chunk(pb, row, chunk, buffer);
  // Loaded and divided while the copies are in flight.
  const float scale = kLog2e / pb.temperature[row];
  const int k_limit = k_limit_of(pb, row);
  const bool wide = k_limit > kListCap;  // the decision draws from this chunk by its masses
  const float* ys = reinterpret_cast<const float*>(buffer);
  // Element e = 4 q + c of thread t's share (t's e-th token in chunk order) sits at ys[y_slot(t, e)].
  auto y_slot = [](int t, int e) { return 4 * (t + (e >> 2) * kThreads) + (e & 3); };
  if (chunk == 0 && row == 0) {  // kernel 2's counters
    for (int i = threadIdx.x; i < pb.batch; i += kThreads) {
      ws.verify_arrivals[i] = 0;
      ws.flag_ready[i] = 0;
    }
    if (threadIdx.x < kCounters) ws.counters[threadIdx.x] = 0;
  }

  if (threadIdx.x < kDepthBins) cs.depth_bins[threadIdx.x] = 0;  // published by block_max's barrier
  wait_staged();
  const float m = block_max(scale_staged(scale, buffer), cs.warp_max);
  D2K_PHASE(mark, 0);

  // The depths below m of every kSampleEvery-th token, binned, pick the list depth.
  if (m != -INFINITY) {
    const float m_plus_1 = m + 1.0f;
#pragma unroll
    for (int q = 0; q < kQuadsPerThread; q += kSampleEvery / 4)
      atomicAdd(&cs.depth_bins[depth_bin(m_plus_1, buffer[threadIdx.x + q * kThreads].x)], 1);
  }
  __syncthreads();
  int depth = pick_depth(cs.depth_bins, k_limit);
  D2K_PHASE(mark, 1);

  // One pass: the chunk's mass, and a bit per token of this thread at or above the level (bit
  // 31 - e for element e, so the list is written in the thread's order by counting leading zeros).
  float level = m - depth_edge(depth);
  float mass = 0.0f;
  unsigned listed_bits = 0;
  if (m != -INFINITY) {
    unsigned below = 0;
#pragma unroll
    for (int q = 0; q < kQuadsPerThread; ++q) {
      const float4 f = buffer[threadIdx.x + q * kThreads];
      mass += quad_mass(f, m);
      below = shift_in_below(below, f, level);
    }
    listed_bits = ~below;
  }
  const float mass_incl = warp_inclusive_sum(mass, lane);
  if (lane == 31) cs.warp_mass[warp] = mass_incl;  // both published by scan_counts' barrier
  ListSlots slots = scan_counts(__popc(listed_bits), cs.warp_count[0]);
  // Shallower while the list overflows; at depth 0 (ties beyond the list) list nothing, which the
  // decision recognizes by the level +inf.
  for (int retry = 1; m != -INFINITY && slots.listed > kListCap; ++retry) {
    D2K_EVENT(14);
    if (depth == 0) {
      level = INFINITY;
      listed_bits = 0;
      slots = ListSlots{0, 0};
      break;
    }
    --depth;
    level = m - depth_edge(depth);
    unsigned below = 0;
#pragma unroll
    for (int q = 0; q < kQuadsPerThread; ++q) below = shift_in_below(below, buffer[threadIdx.x + q * kThreads], level);
    listed_bits = ~below;
    slots = scan_counts(__popc(listed_bits), cs.warp_count[retry & 1]);
  }

  // The list: this thread's tokens at the level, in its own order, then -inf up to kListCap (the
  // decision copies every list whole).
  const int64_t slot = static_cast<int64_t>(row) * pb.chunks + chunk;
  float* out_y = ws.list_y + slot * kListCap;
  int* out_token = ws.list_token + slot * kListCap;
  float* to_y = out_y + slots.offset;
  int* to_token = out_token + slots.offset;
  const int first_token = chunk * kChunk;
  const uint64_t keep = keep_in_l2();
  if (wide) store_kept(ws.thread_mass + slot * kThreads + threadIdx.x, mass, keep);
  for (unsigned bits = listed_bits; bits != 0; ++to_y, ++to_token) {
    const int e = __clz(bits);
    bits &= 0x7fffffffu >> e;
    const int at = y_slot(threadIdx.x, e);  // the token's place in the buffer and in the chunk
    store_kept(to_y, ys[at], keep);
    store_kept(to_token, first_token + at, keep);
  }
  for (int i = slots.listed + threadIdx.x; i < kListCap; i += kThreads) store_kept(out_y + i, -INFINITY, keep);
  D2K_PHASE(mark, 2);

  // The record: its mass is the warp masses added in order (a wide row's draws add them so).
  if (threadIdx.x == 0) {
    float wm[kWarps], chunk_mass = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      wm[w] = cs.warp_mass[w];
      chunk_mass += wm[w];
    }
    float4* out = reinterpret_cast<float4*>(ws.records + slot);
    store_kept(out, make_float4(m, chunk_mass, level, __int_as_float(slots.listed)), keep);
    if (wide) {
      store_kept(out + 1, make_float4(wm[0], wm[1], wm[2], wm[3]), keep);
      store_kept(out + 2, make_float4(wm[4], wm[5], wm[6], wm[7]), keep);
    }
  }
  D2K_PHASE(mark, 3);
}

// Whether any row may be handed to the verifiers.
__device__ bool any_row_may_flag(const Problem& pb) {
  bool may = false;
  for (int r = threadIdx.x; r < pb.batch && !may; r += blockDim.x) may = row_may_flag(pb, r, k_limit_of(pb, r));
  return __syncthreads_or(may);
}

// Work items (flagged slot, span) of the verifiers: spans_of(chunks) per flagged row.
__host__ __device__ inline int spans_of(int chunks) { return (chunks + kChunksPerSpan - 1) / kChunksPerSpan; }

// A verifier's next work item in item order, once its row is flagged; -1 when the row will not be
// (every row is settled and fewer were flagged). Thread 0 only.
__device__ int next_item(const Problem& pb, const Workspace& ws) {
  const unsigned spans = static_cast<unsigned>(spans_of(pb.chunks));
  const unsigned batch = static_cast<unsigned>(pb.batch);
  const volatile unsigned long long* progress = progress_of(ws);
  // Once every row is settled the flags are final (each is out before its row counts as settled):
  // when every item is taken, stop without taking one.
  const unsigned long long before = *progress;
  if ((before >> 32) == batch) {
    __threadfence();
    if (static_cast<const volatile unsigned*>(ws.counters)[kNextItem] >= static_cast<unsigned>(before) * spans) return -1;
  }
  const unsigned item = atomicAdd(&ws.counters[kNextItem], 1u);
  const unsigned which = item / spans;
  if (which >= batch) return -1;
  const volatile unsigned* ready = ws.flag_ready + which;
  for (;;) {
    const unsigned is_ready = *ready;
    const unsigned long long now = *progress;  // loaded with the flag: one round trip a poll
    if (is_ready != 0) break;
    // Every row is settled, so the count of flags is final. A slot below it is published, and its
    // flag is polled until seen: the record is then read after the flag's own release, not only
    // after the settling adds that followed it (relaxed ones, from other rows).
    if ((now >> 32) == batch && which >= static_cast<unsigned>(now)) return -1;
  }
  __threadfence();  // the record is read after its flag
  return static_cast<int>(item);
}

// A verifier CTA: work items (flagged row, span of chunks), taken in order as rows are flagged.
// Each sums the weights strictly above each proposal over its span; the last span of a row accepts
// the first kept proposal, or samples the row itself when none is kept. The flagged record is read
// through L2 only: this SM may hold a line of it from before it was written (a neighbouring slot).
__device__ void verify_flagged_rows(const Problem& pb, const Workspace& ws, float* smem, Scratch& s) {
  __shared__ FlaggedRow f;
  __shared__ int item_shared;
  __shared__ uint64_t second_landed;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int spans = spans_of(pb.chunks);
  let_next_kernel_start();
  if (!any_row_may_flag(pb)) return;
  wait_for_previous_kernel();
  if (threadIdx.x == 0) init_copy_barrier(&second_landed);  // a valid barrier for the first reset below
  for (;;) {
    if (threadIdx.x == 0) {
      reset_copy_barrier(&second_landed);  // new for this item (the last item's waits are done)
      item_shared = next_item(pb, ws);
      if (item_shared >= 0) {
        static_assert(sizeof(FlaggedRow) == 4 * sizeof(int4), "a flagged record is four int4s");
        const int4* from = reinterpret_cast<const int4*>(ws.flagged + item_shared / spans);
        int4* to = reinterpret_cast<int4*>(&f);
#pragma unroll
        for (int i = 0; i < 4; ++i) to[i] = __ldcg(from + i);
      }
    }
    __syncthreads();
    const int item = item_shared;
    if (item < 0) return;
    const int which = item / spans;
    const int span = item - which * spans;
    // The span's second chunk comes by one bulk copy into shared memory (aligned rows), its first
    // into registers; both are in flight at once. The copy barrier is new (initialized before the
    // block barrier above), so a thread that gets there before thread 0 has issued the copy waits.
    const int second = span * kChunksPerSpan + 1;
    const int second_len = second < pb.chunks ? min(kChunk, pb.vocab - second * kChunk) : 0;
    const bool bulk = pb.vectorized && second_len > 0;
    if (bulk && threadIdx.x == 0) {
      bulk_copy_to_shared(smem, pb.logits + f.row * pb.row_stride + second * kChunk,
                          static_cast<unsigned>(sizeof(float) * second_len), &second_landed);
    }

    D2K_MARK(mark);
    // This thread's kVerifyQuads float4s of each chunk as y (float4 t + q * kDecideThreads of it,
    // -inf past the row's end), and their weights by the expression kernel 1 and the proposals use.
    constexpr int kVerifyQuads = kChunk / 4 / kDecideThreads;
    float mass[kProposals] = {};
    int count[kProposals] = {};
#pragma unroll 1
    for (int chunk = span * kChunksPerSpan; chunk < min(second + 1, pb.chunks); ++chunk) {
      float4 y[kVerifyQuads];
      if (chunk == second && bulk) {
        wait_bulk_copy(&second_landed);
        const float4* staged = reinterpret_cast<const float4*>(smem);
#pragma unroll
        for (int q = 0; q < kVerifyQuads; ++q) {
          const int at = threadIdx.x + q * kDecideThreads;
          const float4 x = 4 * at < second_len ? staged[at] : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
          y[q] = scaled(x, f.scale);
        }
      } else {
        load_scaled_quads<kVerifyQuads, kDecideThreads>(pb, f.row, chunk, threadIdx.x, f.scale, y);
      }
#pragma unroll
      for (int q = 0; q < kVerifyQuads; ++q) {
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const float w = weight_of(component(y[q], c), f.m);
#pragma unroll
          for (int i = 0; i < kProposals; ++i) {
            if (w > f.weight[i]) {
              mass[i] += w;
              ++count[i];
            }
          }
        }
      }
    }
    const Totals<kProposals> above = block_totals<kProposals>(mass, count, s);
    if (threadIdx.x == 0) {
      float4* part = reinterpret_cast<float4*>(ws.partials + (static_cast<int64_t>(which) * spans + span) * 2 * kProposals);
      part[0] = make_float4(above.count[0], above.count[1], above.count[2], above.count[3]);
      part[1] = make_float4(above.mass[0], above.mass[1], above.mass[2], above.mass[3]);
      // Releases this span's partials; the last arrival acquires the others'.
      s.flag = fetch_add_acq_rel(&ws.verify_arrivals[which], 1u) == static_cast<unsigned>(spans - 1);
    }
    __syncthreads();
    D2K_PHASE(mark, 11);
    if (s.flag) {
      // Thread 0's acquire and the barrier after it order warp 0's reads of the partials (through L2).
      const Limits lim{f.k_limit, f.no_p, f.limit_mass};
      if (warp == 0) {
        // Every span's partials at once (one round trip), then the row's totals over the spans.
        const float4* parts = reinterpret_cast<const float4*>(ws.partials + static_cast<int64_t>(which) * spans * 2 * kProposals);
        const bool member = lane < spans;
        const float4 none = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        const float4 counts = member ? __ldcg(parts + 2 * lane) : none;
        const float4 masses = member ? __ldcg(parts + 2 * lane + 1) : none;
        int accepted = -1;
#pragma unroll
        for (int i = kProposals - 1; i >= 0; --i) {
          const float c = warp_sum(component(counts, i));
          const float msum = warp_sum(component(masses, i));
          if (f.token[i] >= 0 && lim.keeps(static_cast<int>(c), msum)) accepted = i;  // the first kept
        }
        if (lane == 0) item_shared = accepted;
      }
      __syncthreads();
      const int accepted = item_shared;
      if (accepted >= 0) {
        D2K_EVENT(12);
        if (threadIdx.x == 0) pb.samples[f.row] = f.token[accepted];
      } else {
        float floor = 0.0f;
        int fallback = 0;
        for (int i = 0; i < kProposals; ++i) {
          if (f.token[i] >= 0 && f.weight[i] >= floor) {
            floor = f.weight[i];
            fallback = f.token[i];
          }
        }
        const int token = sample_whole_row(pb.logits + f.row * pb.row_stride, pb.vocab, pb.seed, f.row, f.scale, f.m,
                                           lim, floor, fallback, s);
        D2K_PHASE(mark, 13);
        if (threadIdx.x == 0) pb.samples[f.row] = token;
      }
    }
    __syncthreads();
  }
}

// Kernel 2: CTA r < batch decides row r; the CTAs after them verify the rows that their lists
// could not decide. A verifier waits only for deciders, which have lower indices, so they were
// started before it.
__global__ void __launch_bounds__(kDecideThreads) decide_kernel(Problem pb, Workspace ws) {
  extern __shared__ __align__(128) float lists_and_weights[];  // for the bulk copy, and a verifier's float4 reads
  __shared__ Scratch s;
  if (blockIdx.x >= static_cast<unsigned>(pb.batch)) {
    verify_flagged_rows(pb, ws, lists_and_weights, s);
    return;
  }
  decide_row(pb, ws, blockIdx.x, lists_and_weights, s);
}

bool is_dtype(const DLTensor& t, uint8_t code, uint8_t bits) {
  return t.dtype.code == code && t.dtype.bits == bits && t.dtype.lanes == 1;
}

bool is_vector(const DLTensor& t, int64_t n) { return t.ndim == 1 && t.shape[0] == n && t.strides[0] == 1; }

int64_t chunks_of(int64_t vocab) { return (vocab + kChunk - 1) / kChunk; }

int check_call(const d2k_native_call* call, int64_t& batch, int64_t& vocab, char* error, size_t error_size) {
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
  if (batch > kMaxBatch) {
    std::snprintf(error, error_size, "batch %lld is above %d", static_cast<long long>(batch), kMaxBatch);
    return 1;
  }
  if (vocab <= 0 || chunks_of(vocab) > kMaxChunks) {
    std::snprintf(error, error_size, "vocab %lld is outside 1..%d", static_cast<long long>(vocab),
                  kMaxChunks * kChunk);
    return 1;
  }
  return 0;
}

}  // namespace

int32_t d2k_native_abi_version(void) { return D2K_NATIVE_ABI_VERSION; }

#ifdef D2K_PHASE_TIMES
// Profiling build only: the phases the counters stand for, in counter order.
extern "C" D2K_NATIVE_EXPORT const char* d2k_sampling_phase_names(void) {
  return "chunk load + scale + max;chunk depth sample;chunk mass + list;chunk record;"
         "decide records + lists (a wide row's: + proposals + their test pass);"
         "decide first draw or the proposals' totals;decide pivot rounds;(event) a list round;"
         "(event) no-limit row;(event) row flagged;whole-row sampling in kernel 2;verify chunk pass;"
         "(event) proposal accepted;whole-row sampling by a verifier;(event) depth made shallower";
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
  const DLTensor& logits = call->inputs[0];
  Problem pb;
  pb.logits = static_cast<const float*>(logits.data);
  pb.row_stride = logits.strides[0];
  pb.top_k = static_cast<const int*>(call->inputs[1].data);
  pb.top_p = static_cast<const float*>(call->inputs[2].data);
  pb.temperature = static_cast<const float*>(call->inputs[3].data);
  pb.samples = static_cast<int64_t*>(call->outputs[0].data);
  pb.batch = static_cast<int>(batch);
  pb.vocab = static_cast<int>(vocab);
  pb.chunks = static_cast<int>(chunks);
  pb.vectorized = reinterpret_cast<uintptr_t>(pb.logits) % 16 == 0 && pb.row_stride % 4 == 0 && vocab % 4 == 0;
  pb.seed = static_cast<uint64_t>(seed->int64_value);
  const Workspace ws = layout.carve(call->workspace);
  const auto stream = static_cast<cudaStream_t>(call->stream);

  static int sms = 0;  // kernel 2 adds a verifier CTA per SM
  cudaError_t status = cudaSuccess;
  if (sms == 0) {
    int device = 0;
    status = cudaGetDevice(&device);
    if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  }
  // The lists, then packed weights (deciders); a chunk of logits (verifiers).
  const size_t list_bytes = std::max(2 * sizeof(float) * chunks * kListCap, sizeof(float) * kChunk);
  // Dynamic shared memory beyond the default (48 KB less the static part) needs an opt-in, raised
  // to the largest size launched so far.
  static size_t decide_smem_allowed = 0;
  if (status == cudaSuccess && list_bytes > decide_smem_allowed) {
    status = cudaFuncSetAttribute(decide_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(list_bytes));
    if (status == cudaSuccess) decide_smem_allowed = list_bytes;
  }
  // Both kernels by programmatic dependent launch (see wait_for_previous_kernel).
  cudaLaunchAttribute early_start;
  early_start.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early_start.val.programmaticStreamSerializationAllowed = 1;
  auto launch_early = [&](auto kernel, dim3 grid, int threads, size_t smem) {
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = dim3(static_cast<unsigned>(threads));
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    config.attrs = &early_start;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, kernel, pb, ws);
  };
  if (status == cudaSuccess)
    status = launch_early(chunk_kernel, dim3(static_cast<unsigned>(chunks), static_cast<unsigned>(batch)), kThreads,
                          sizeof(float) * kChunk);
  // A decider per row, then a verifier per SM (or per work item of the rows, when fewer).
  const int64_t verifiers = std::min<int64_t>(sms, batch * spans_of(static_cast<int>(chunks)));
  if (status == cudaSuccess)
    status = launch_early(decide_kernel, dim3(static_cast<unsigned>(batch + verifiers)), kDecideThreads, list_bytes);
  if (status != cudaSuccess) {
    std::snprintf(error, error_size, "CUDA error: %s", cudaGetErrorString(status));
    return 1;
  }
  return 0;
}
