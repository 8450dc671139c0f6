#include "sandbox/ld_cache.h"

#include <cstdint>
#include <cstring>
#include <set>
#include <string>

namespace d2k::sandbox {
namespace {

constexpr std::string_view kMagic = "glibc-ld.so.cache1.1";
constexpr size_t kHeader = 48;  // magic and version, then counts, flags and reserved words
constexpr size_t kEntry = 24;   // flags, key, value, OS version, hardware capabilities

uint32_t read_u32(std::string_view bytes, size_t at) {
  uint32_t value = 0;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

}  // namespace

std::vector<std::filesystem::path> ld_cache_folders(std::string_view cache) {
  // Older caches put the new format after an old one; its string offsets count from its start.
  const size_t start = cache.find(kMagic);
  if (start == std::string_view::npos) return {};
  const std::string_view table = cache.substr(start);
  if (table.size() < kHeader) return {};
  const uint32_t count = read_u32(table, 20);
  std::vector<std::filesystem::path> folders;
  std::set<std::string> seen;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t entry = kHeader + i * kEntry;
    if (entry + kEntry > table.size()) break;
    const uint32_t value = read_u32(table, entry + 8);
    if (value >= table.size()) continue;
    const std::string_view rest = table.substr(value);
    const std::string path(rest.substr(0, rest.find('\0')));
    if (path.empty() || path.front() != '/') continue;
    const std::string folder = std::filesystem::path(path).parent_path().string();
    if (seen.insert(folder).second) folders.emplace_back(folder);
  }
  return folders;
}

}  // namespace d2k::sandbox
