# Writes ablate2.cu: solution.cu (one chunk kernel, one decide kernel with verifiers) whose
# launches obey D2K_ABLATE (bit 1: kernel 1, 2: kernel 2, 4: kernel 2's verifier CTAs; read at
# every call), with -DD2K_POLL_NS=N for the verifiers' sleep between polls (default 256).
import pathlib, sys
src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "tasks/topk_topp_sampling/expert/solution.cu").read_text()
def sub(old, new, count=1):
    global src
    assert src.count(old) == count, (old, src.count(old))
    src = src.replace(old, new)
sub("    __nanosleep(64);", "#ifndef D2K_POLL_NS\n#define D2K_POLL_NS 64\n#endif\n    if (D2K_POLL_NS > 0) __nanosleep(D2K_POLL_NS);")
sub("""  if (status == cudaSuccess)
    status = launch_early(chunk_kernel,""", """  const char* ablate_env = getenv("D2K_ABLATE");
  const int ablate = ablate_env ? atoi(ablate_env) : 7;
  if (status == cudaSuccess && (ablate & 1))
    status = launch_early(chunk_kernel,""")
sub("""  if (status == cudaSuccess)
    status = launch_early(decide_kernel, dim3(static_cast<unsigned>(batch + verifiers)),""",
"""  if (status == cudaSuccess && (ablate & 2))
    status = launch_early(decide_kernel, dim3(static_cast<unsigned>(batch + ((ablate & 4) ? verifiers : 0))),""")
src = "#include <cstdlib>\n" + src
pathlib.Path(".device/prof/ablate2.cu").write_text(src)
