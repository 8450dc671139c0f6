#include "profile/tool_finder.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace d2k::profile {

std::vector<std::filesystem::path> SystemToolFinder::places() const {
  std::vector<std::filesystem::path> folders;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream entries(path);
    std::string entry;
    while (std::getline(entries, entry, ':')) {
      if (!entry.empty()) folders.emplace_back(entry);
    }
  }
  const char* cuda_home = std::getenv("CUDA_HOME");
  folders.push_back(std::filesystem::path(cuda_home != nullptr ? cuda_home : "/usr/local/cuda") / "bin");
  return folders;
}

std::optional<std::filesystem::path> SystemToolFinder::find(const std::string& name) const {
  for (const auto& folder : places()) {
    const auto candidate = folder / name;
    if (access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) {
      return candidate;
    }
  }
  return std::nullopt;
}

}  // namespace d2k::profile
