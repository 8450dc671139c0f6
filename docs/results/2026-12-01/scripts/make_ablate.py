# Writes ablate.cu: solution.cu whose launches obey D2K_ABLATE (bit 1: kernel 1, 2: kernel 2,
# 4: kernel 3; read at every call, so a graph captures the kernels enabled at capture time), and
# whose kernel 1 stops after the maximum (-DD2K_K1_LOAD_ONLY) or skips the list writes
# (-DD2K_K1_NO_LIST).
import pathlib, sys
src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "tasks/topk_topp_sampling/expert/solution.cu").read_text()
def sub(old, new, count=1):
    global src
    assert src.count(old) == count, (old, src.count(old))
    src = src.replace(old, new)
sub("  if (status == cudaSuccess) {\n    chunk_kernel<<<",
    "  const char* ablate_env = getenv(\"D2K_ABLATE\");\n  const int ablate = ablate_env ? atoi(ablate_env) : 7;\n"
    "  if (status == cudaSuccess && (ablate & 1)) {\n    chunk_kernel<<<")
sub("  if (status == cudaSuccess) status = launch_after(decide_kernel",
    "  if (status == cudaSuccess && (ablate & 2)) status = launch_after(decide_kernel")
sub("  if (status == cudaSuccess)\n    status = launch_after(verify_kernel",
    "  if (status == cudaSuccess && (ablate & 4))\n    status = launch_after(verify_kernel")
sub("  const float m = block_max(scale_staged(scale, buffer), cs.warp_max);\n  D2K_PHASE(mark, 0);\n",
    "  const float m = block_max(scale_staged(scale, buffer), cs.warp_max);\n  D2K_PHASE(mark, 0);\n"
    "#ifdef D2K_K1_LOAD_ONLY\n  if (threadIdx.x == 0) ws.records[static_cast<int64_t>(row) * pb.chunks + chunk].m = m;\n  return;\n#endif\n")
sub("  for (unsigned bits = listed_bits; bits != 0; ++to_y, ++to_token) {",
    "#ifdef D2K_K1_NO_LIST\n  listed_bits = 0;\n#endif\n  for (unsigned bits = listed_bits; bits != 0; ++to_y, ++to_token) {")
sub("  let_next_kernel_start();\n  stage_chunk(pb, row, chunk, buffer);",
    "  let_next_kernel_start();\n#ifdef D2K_K1_PDL\n  wait_for_previous_kernel();\n#endif\n  stage_chunk(pb, row, chunk, buffer);")
sub("  wait_for_previous_kernel();\n  const int flagged = static_cast<int>(__ldcg(&ws.counters[0]));",
    "#ifdef D2K_K1_PDL\n  let_next_kernel_start();\n#endif\n  wait_for_previous_kernel();\n  const int flagged = static_cast<int>(__ldcg(&ws.counters[0]));")
# kernel 1 launched after the attribute is set up
sub("""  if (status == cudaSuccess && (ablate & 1)) {
    chunk_kernel<<<dim3(static_cast<unsigned>(chunks), static_cast<unsigned>(batch)), kThreads, sizeof(float) * kChunk,
                   stream>>>(pb, ws);
    status = cudaGetLastError();
  }
""", "")
sub("""  if (status == cudaSuccess && (ablate & 2)) status = launch_after(decide_kernel""",
"""#ifdef D2K_K1_PDL
  if (status == cudaSuccess && (ablate & 1)) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(chunks), static_cast<unsigned>(batch));
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = sizeof(float) * kChunk;
    config.stream = stream;
    config.attrs = &early_start;
    config.numAttrs = 1;
    status = cudaLaunchKernelEx(&config, chunk_kernel, pb, ws);
  }
#else
  if (status == cudaSuccess && (ablate & 1)) {
    chunk_kernel<<<dim3(static_cast<unsigned>(chunks), static_cast<unsigned>(batch)), kThreads, sizeof(float) * kChunk,
                   stream>>>(pb, ws);
    status = cudaGetLastError();
  }
#endif
  if (status == cudaSuccess && (ablate & 2)) status = launch_after(decide_kernel""")
src = "#include <cstdlib>\n" + src
pathlib.Path(".device/prof/ablate.cu").write_text(src)
