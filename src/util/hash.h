#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace d2k::util {

// XXH3 64-bit digest: fast, non-cryptographic; used for content identity, not for secrecy.
uint64_t hash_bytes(const void* data, size_t size, uint64_t seed = 0);

// Streaming form for data that arrives in pieces (tensors copied from the device in chunks).
class Hasher {
 public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher&) = delete;  // owns an XXH3 state
  Hasher& operator=(const Hasher&) = delete;
  void update(const void* data, size_t size);
  uint64_t digest() const;

 private:
  void* state_;
};

std::string to_hex(uint64_t value);
// Hex digest of a file's contents; throws std::runtime_error if it cannot be read.
std::string hash_file(const std::filesystem::path& path);

}  // namespace d2k::util
