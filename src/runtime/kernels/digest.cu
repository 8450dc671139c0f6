// The device half of runtime/input_digest.h: a position-keyed sum of mixed 64-bit words, the
// same function input_digest.cc computes on the host. Compiled to PTX at build time and loaded
// through the driver, so the digest needs neither the CUDA runtime nor PyTorch.

__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__device__ __forceinline__ unsigned long long keyed(unsigned long long word,
                                                    unsigned long long index) {
  return mix64(word ^ (index * 0x9E3779B97F4A7C15ull + 0xD1B54A32D192ED03ull));
}

// A word of `data` at byte offset `offset`, any alignment, zero past `bytes`.
__device__ __forceinline__ unsigned long long word_at(const unsigned char* data,
                                                      unsigned long long offset,
                                                      unsigned long long bytes) {
  unsigned long long word = 0;
  for (int b = 0; b < 8 && offset + b < bytes; ++b) {
    word |= static_cast<unsigned long long>(data[offset + b]) << (8 * b);
  }
  return word;
}

extern "C" __global__ void d2k_digest(const unsigned char* data, unsigned long long bytes,
                                      unsigned long long* sum) {
  const unsigned long long words = (bytes + 7) / 8;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const bool aligned = (reinterpret_cast<unsigned long long>(data) & 7) == 0;
  const unsigned long long full = bytes / 8;
  unsigned long long acc = 0;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < words; i += stride) {
    const unsigned long long word =
        aligned && i < full ? reinterpret_cast<const unsigned long long*>(data)[i]
                            : word_at(data, i * 8, bytes);
    acc += keyed(word, i);
  }
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(sum, acc);
}
