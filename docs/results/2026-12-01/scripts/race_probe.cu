// Does racecheck order a write made after a named barrier of some warps (bar.sync 1, 128) before
// a block barrier, against a read after it by another warp? Correct code: any report is the tool's.
#include <cstdio>
__global__ void named_then_block(int* out, int use_named) {
  __shared__ int value;
  if (threadIdx.x < 128 && use_named) asm volatile("bar.sync 1, 128;" ::: "memory");
  if (threadIdx.x == 0) value = 42 + blockIdx.x;
  __syncthreads();
  if (threadIdx.x == 288) out[blockIdx.x] = value;
}
int main() {
  int* out;
  cudaMalloc(&out, 64 * sizeof(int));
  for (int named = 0; named < 2; ++named) {
    named_then_block<<<4, 512>>>(out, named);
    cudaError_t e = cudaDeviceSynchronize();
    int host[4];
    cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
    std::printf("use_named=%d: %s, out %d %d %d %d\n", named, cudaGetErrorString(e), host[0], host[1], host[2], host[3]);
  }
  return 0;
}
