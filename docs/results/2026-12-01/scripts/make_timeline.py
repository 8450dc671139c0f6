# Writes a copy of a sampling source whose kernels stamp a timeline of one call: every kernel-1
# CTA's start (after its wait) and end (globaltimer), and every decider's start on its row, lists
# landed, pass done and end (globaltimer and clock64). d2k_tl_reset() clears it, d2k_tl_read()
# copies it out, d2k_k1_occupancy() reports kernel 1's registers, static shared memory, local
# memory and CTAs per SM.
#   python3 make_timeline.py SOURCE.cu OUT.cu
import pathlib, sys
src = pathlib.Path(sys.argv[1]).read_text()
def sub(old, new, count=1):
    global src
    n = src.count(old)
    assert (n >= 1) if count is None else n == count, (old, n)
    src = src.replace(old, new)
K1_END = '  if (threadIdx.x == 0 && blockIdx.x == 0 && blockIdx.y == 0) d2k_tl[((pb.seed & 1) << 20) + (1 << 20) - 1] = static_cast<unsigned>(__cvta_generic_to_shared(buffer));\n  if ((threadIdx.x & 31) == 0) atomicMax(&d2k_tl[((pb.seed & 1) << 20) + 2 * (blockIdx.y * gridDim.x + blockIdx.x) + 1], d2k_gtime());\n'
DECIDE_START = 'd2k_tl[((pb.seed & 1) << 20) + kTlDecide + 8 * row] = d2k_gtime(); d2k_tl[((pb.seed & 1) << 20) + kTlDecide + 8 * row + 1] = clock64();'
sub("namespace {\n", """__device__ unsigned long long d2k_tl[2 << 20];  // a half per seed parity (graph replays alternate them)
__device__ __forceinline__ unsigned long long d2k_gtime() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
constexpr int kTlDecide = 1 << 19;  // per row 8: gtime start, clock start, clock lists, clock pass, clock end, gtime end
namespace {
""")
sub("  wait_for_previous_kernel();  // whatever wrote the inputs, or the last call's kernel 2 (the workspace)\n",
    "  wait_for_previous_kernel();\n  if (threadIdx.x == 0) d2k_tl[((pb.seed & 1) << 20) + 2 * (blockIdx.y * gridDim.x + blockIdx.x)] = d2k_gtime();\n")
if "  if (threadIdx.x == 0) add_release(&chunks_done[row], 1u);\n}" in src:
    sub("  if (threadIdx.x == 0) add_release(&chunks_done[row], 1u);\n}", "  if (threadIdx.x == 0) add_release(&chunks_done[row], 1u);\n" + K1_END + "}")
    sub("    chunks_done[row] = 0;\n", "    chunks_done[row] = 0;\n    " + DECIDE_START + "\n")
    sub("  decide_row(pb, ws, row, lists_and_weights, s);\n", "  decide_row(pb, ws, row, lists_and_weights, s);\n  if ((threadIdx.x & 31) == 0) { atomicMax(&d2k_tl[((pb.seed & 1) << 20) + kTlDecide + 8 * blockIdx.x + 4], clock64()); atomicMax(&d2k_tl[((pb.seed & 1) << 20) + kTlDecide + 8 * blockIdx.x + 5], d2k_gtime()); }\n")
else:
    sub("  D2K_PHASE(mark, 3);\n}", "  D2K_PHASE(mark, 3);\n" + K1_END + "}")
    sub("  wait_for_previous_kernel();\n  // A row that cannot", "  wait_for_previous_kernel();\n  if (threadIdx.x == 0) { " + DECIDE_START + " }\n  // A row that cannot")
    sub("  decide_row(pb, ws, blockIdx.x, lists_and_weights, s);\n", "  decide_row(pb, ws, blockIdx.x, lists_and_weights, s);\n  if ((threadIdx.x & 31) == 0) { atomicMax(&d2k_tl[((pb.seed & 1) << 20) + kTlDecide + 8 * blockIdx.x + 4], clock64()); atomicMax(&d2k_tl[((pb.seed & 1) << 20) + kTlDecide + 8 * blockIdx.x + 5], d2k_gtime()); }\n")
sub("    verify_flagged_rows(pb, ws, lists_and_weights, s);\n", "    verify_flagged_rows(pb, ws, lists_and_weights, s);\n    if (threadIdx.x == 0) atomicMax(&d2k_tl[((pb.seed & 1) << 20) + (1 << 20) - 2], d2k_gtime());\n")
sub("  wait_bulk_copy(&lists_landed);\n", "  wait_bulk_copy(&lists_landed);\n  if (threadIdx.x == 0) d2k_tl[((pb.seed & 1) << 20) + kTlDecide + 8 * row + 2] = clock64();\n", count=None)
sub("D2K_PHASE(mark, 4);\n", "D2K_PHASE(mark, 4);\n  if (threadIdx.x == 0) d2k_tl[((pb.seed & 1) << 20) + kTlDecide + 8 * row + 3] = clock64();\n", count=None)
src += """
extern "C" int d2k_k1_occupancy(int* out) {
  cudaFuncAttributes a;
  if (cudaFuncGetAttributes(&a, chunk_kernel) != cudaSuccess) return 1;
  out[0] = a.numRegs; out[1] = static_cast<int>(a.sharedSizeBytes); out[2] = static_cast<int>(a.localSizeBytes);
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&out[3], chunk_kernel, kThreads, sizeof(float) * kChunk) != cudaSuccess) return 2;
  return 0;
}
extern "C" int d2k_tl_reset() {
  static unsigned long long zero[2 << 20];
  return static_cast<int>(cudaMemcpyToSymbol(d2k_tl, zero, sizeof(zero)));
}
extern "C" int d2k_tl_read(unsigned long long* host) {
  return static_cast<int>(cudaMemcpyFromSymbol(host, d2k_tl, sizeof(unsigned long long) << 21));
}
"""
pathlib.Path(sys.argv[2]).write_text(src)
