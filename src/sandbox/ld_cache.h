#pragma once
// The dynamic loader's cache (/etc/ld.so.cache, "glibc-ld.so.cache1.1" format): where the loader
// finds each library, the GPU driver's included, whatever folder a distribution puts them in.

#include <filesystem>
#include <string_view>
#include <vector>

namespace d2k::sandbox {

// The folders of the libraries the cache lists, each once, in the cache's order. Text that is
// not a cache, or a cache cut short, gives what could be read (possibly nothing).
std::vector<std::filesystem::path> ld_cache_folders(std::string_view cache);

}  // namespace d2k::sandbox
