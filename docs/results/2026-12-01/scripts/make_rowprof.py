# Writes rowprof.cu: solution.cu whose decision records per row the global start/end time, the
# per-warp end clocks, the pivot rounds and whether it flagged the row; d2k_row_profile() copies
# the records out (24 u64 per row). With -DD2K_K1_PDL (also in ablate-style builds), kernel 1 is
# launched programmatically and waits before its first read.
import pathlib, sys
src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "tasks/topk_topp_sampling/expert/solution.cu").read_text()
def sub(old, new, count=1):
    global src
    if count is None:  # optional: any number of places
        src = src.replace(old, new)
        return
    assert src.count(old) == count, (old, src.count(old))
    src = src.replace(old, new)
sub("namespace {\n", """__device__ unsigned long long d2k_row_prof[65536 * 32];
__device__ __forceinline__ unsigned long long d2k_gtime() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
namespace {
""")
sub("""  wait_for_previous_kernel();
  // A row that cannot""", """  wait_for_previous_kernel();
  if (threadIdx.x == 0) { d2k_row_prof[row * 32] = d2k_gtime(); d2k_row_prof[row * 32 + 1] = clock64(); d2k_row_prof[row * 32 + 2] = 0; d2k_row_prof[row * 32 + 3] = 0; }
  // A row that cannot""")
sub("""    const Choice<2> choice = choose_warps<2>(mass, count, uu, s);
    D2K_EVENT(7);""", """    const Choice<2> choice = choose_warps<2>(mass, count, uu, s);
    if (threadIdx.x == 0) d2k_row_prof[row * 32 + 2] += 1;
    D2K_EVENT(7);""")
if "  D2K_EVENT(9);\n  if (threadIdx.x != 0) return;" in src:
    sub("""  D2K_EVENT(9);
  if (threadIdx.x != 0) return;""", """  D2K_EVENT(9);
  if (threadIdx.x != 0) return;
  d2k_row_prof[row * 32 + 3] = 1;""")
else:
    sub("  D2K_EVENT(9);\n", "  D2K_EVENT(9);\n  d2k_row_prof[row * 32 + 3] = 1;\n")
sub("""  decide_row(pb, ws, blockIdx.x, lists_and_weights, s);
""", """  decide_row(pb, ws, blockIdx.x, lists_and_weights, s);
  if ((threadIdx.x & 31) == 0) d2k_row_prof[blockIdx.x * 32 + 4 + (threadIdx.x >> 5)] = clock64();
  if (threadIdx.x == 0) d2k_row_prof[blockIdx.x * 32 + 20] = d2k_gtime();
""")
sub("    recs[lane] = r;\n", "    recs[lane] = r;\n    if (lane == 0) d2k_row_prof[row * 32 + 21] = clock64();\n")
if "wait_bulk_copy(&lists_landed);\n" in src:
    sub("  wait_bulk_copy(&lists_landed);\n", "  wait_bulk_copy(&lists_landed);\n  if (threadIdx.x == 0) d2k_row_prof[row * 32 + 22] = clock64();\n")
else:
    sub("""  asm volatile("cp.async.wait_all;\\n" ::: "memory");
      __syncthreads();
    """, """  asm volatile("cp.async.wait_all;\\n" ::: "memory");
      __syncthreads();
      if (threadIdx.x == 0) d2k_row_prof[row * 32 + 22] = clock64();
    """)
sub("  D2K_PHASE(mark, 4);\n", "  D2K_PHASE(mark, 4);\n  if (threadIdx.x == 0) d2k_row_prof[row * 32 + 23] = clock64();\n")
sub("    D2K_PHASE(mark, 5);\n", "    D2K_PHASE(mark, 5);\n    if (threadIdx.x == 0) d2k_row_prof[row * 32 + 24] = clock64();\n", count=None)
sub("    if (threadIdx.x == 0) atomicAdd(&ws.counters[kRowsSettled], 1u);\n    const float p1", "    if (threadIdx.x == 0) atomicAdd(&ws.counters[kRowsSettled], 1u);\n    if (threadIdx.x == 0) d2k_row_prof[row * 32 + 25] = clock64();\n    const float p1", count=None)
sub("    sums_above(src, pivots, mass, count);\n    const Totals", "    sums_above(src, pivots, mass, count);\n    if (threadIdx.x == 0) d2k_row_prof[row * 32 + 26] = clock64();\n    const Totals", count=None)
call = "    verify_flagged_rows(pb, ws, lists_and_weights, s);\n" if "verify_flagged_rows(pb, ws, lists_and_weights, s);" in src else "    verify_flagged_rows(pb, ws, s);\n"
sub(call + "    return;", call + "    if (threadIdx.x == 0) atomicMax(&d2k_verify_end, d2k_gtime());\n    return;")
sub("__device__ unsigned long long d2k_row_prof[65536 * 32];\n", "__device__ unsigned long long d2k_row_prof[65536 * 32];\n__device__ unsigned long long d2k_verify_end;\n")
src += """
extern "C" unsigned long long d2k_last_verify_end() {
  unsigned long long t = 0;
  cudaMemcpyFromSymbol(&t, d2k_verify_end, sizeof(t));
  return t;
}
extern "C" int d2k_row_profile(unsigned long long* host, int rows) {
  return static_cast<int>(cudaMemcpyFromSymbol(host, d2k_row_prof, sizeof(unsigned long long) * 32 * rows));
}
"""
pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else ".device/prof/rowprof.cu").write_text(src)
