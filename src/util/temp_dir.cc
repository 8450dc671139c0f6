#include "util/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace d2k::util {

std::filesystem::path make_unique_dir(const std::filesystem::path& parent, std::string_view prefix) {
  std::filesystem::create_directories(parent);
  std::string pattern = (parent / (std::string(prefix) + "XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a folder in " + parent.string() + ": " +
                             std::strerror(errno));
  }
  return std::filesystem::canonical(pattern);
}

TempDir::TempDir(std::string_view prefix, const std::filesystem::path& parent)
    : path_(make_unique_dir(parent, prefix)) {}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace d2k::util
