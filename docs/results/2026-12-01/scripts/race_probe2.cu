// racecheck on the decision's pattern, piece by piece. Mode bits: 1 warps 0-3 meet at a named
// barrier (bar.sync 1, 128) before thread 0's write; 2 warps 4-15 wait on the bulk copy's
// mbarrier before the block barrier; 4 every thread waits on it after the block barrier.
// Thread 0 writes, block barrier, thread 288 reads: correct in every mode.
#include <cstdio>
#include <cstdint>
__device__ __forceinline__ void wait_copy(uint64_t* barrier) {
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  unsigned done = 0;
  while (!done) {
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done) : "r"(bar) : "memory");
  }
}
__global__ void pattern(const float* from, int* out, int mode) {
  __shared__ __align__(128) float staged[1024];
  __shared__ uint64_t landed;
  __shared__ int value;
  const int warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) {
    const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&landed));
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(staged));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\nfence.mbarrier_init.release.cluster;\n" ::"r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(bar), "r"(4096) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
                 "l"(from), "r"(4096), "r"(bar) : "memory");
  }
  __syncthreads();
  if (warp < 4) {
    if (mode & 1) asm volatile("bar.sync 1, 128;" ::: "memory");
    if (threadIdx.x == 0) value = 42 + blockIdx.x;
  } else if (mode & 2) {
    wait_copy(&landed);
  }
  __syncthreads();
  if (mode & 4) wait_copy(&landed);
  if (threadIdx.x == 288) out[blockIdx.x] = value + static_cast<int>(staged[5]);
}
int main(int argc, char** argv) {
  const int mode = argc > 1 ? atoi(argv[1]) : 7;
  float* from; int* out;
  cudaMalloc(&from, 4096); cudaMemset(from, 0, 4096);
  cudaMalloc(&out, 64 * sizeof(int));
  pattern<<<4, 512>>>(from, out, mode);
  cudaError_t e = cudaDeviceSynchronize();
  int host[4];
  cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
  std::printf("mode %d: %s, out %d %d %d %d\n", mode, cudaGetErrorString(e), host[0], host[1], host[2], host[3]);
  return 0;
}
