#include "sandbox/ld_cache.h"

#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "util/hostile_text_test_util.h"

namespace d2k::sandbox {
namespace {

namespace fs = std::filesystem;

// A cache of the "glibc-ld.so.cache1.1" format naming `libraries`.
std::string make_cache(const std::vector<std::string>& libraries) {
  std::string strings;
  std::vector<uint32_t> offsets;
  const size_t table = 48 + 24 * libraries.size();
  for (const auto& library : libraries) {
    offsets.push_back(static_cast<uint32_t>(table + strings.size()));
    strings += library + '\0';
  }
  std::string cache = "glibc-ld.so.cache1.1";
  const auto put = [&](uint32_t value) { cache.append(reinterpret_cast<const char*>(&value), 4); };
  put(static_cast<uint32_t>(libraries.size()));
  put(static_cast<uint32_t>(strings.size()));
  cache.resize(48, '\0');
  for (const uint32_t offset : offsets) {
    put(1);       // flags
    put(offset);  // key: the name (the path will do)
    put(offset);  // value: the path
    put(0);
    cache.append(8, '\0');
  }
  return cache + strings;
}

TEST(LdCacheTest, EachLibrarysFolderOnceInOrder) {
  const auto folders = ld_cache_folders(make_cache(
      {"/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/opt/driver/lib/libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu/libc.so.6"}));
  EXPECT_EQ(folders, (std::vector<fs::path>{"/usr/lib/x86_64-linux-gnu", "/opt/driver/lib"}));
}

TEST(LdCacheTest, ThisHostsCacheNamesTheCLibrarysFolder) {
  std::ifstream in("/etc/ld.so.cache", std::ios::binary);
  if (!in) GTEST_SKIP() << "no /etc/ld.so.cache here";
  std::stringstream bytes;
  bytes << in.rdbuf();
  const auto folders = ld_cache_folders(bytes.str());
  ASSERT_FALSE(folders.empty());
  EXPECT_TRUE(std::any_of(folders.begin(), folders.end(),
                          [](const fs::path& folder) { return fs::exists(folder / "libc.so.6"); }));
}

// Bounded random input: a cache cut short, with bytes changed, or not a cache at all gives what
// could be read, never a read past its end.
TEST(LdCacheTest, HostileCachesNeverReadPastTheirEnd) {
  const std::string valid = make_cache({"/usr/lib/libc.so.6", "/lib/libm.so.6", "/opt/x/liby.so"});
  util::HostileText hostile(3);
  for (int round = 0; round < 5000; ++round) {
    std::string cache = hostile.pick(3) == 0 ? valid.substr(0, hostile.pick(static_cast<int>(valid.size())))
                                             : hostile.mutate(valid);
    for (const auto& folder : ld_cache_folders(cache)) EXPECT_TRUE(folder.is_absolute());
  }
}

}  // namespace
}  // namespace d2k::sandbox
