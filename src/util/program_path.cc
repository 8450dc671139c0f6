#include "util/program_path.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace d2k::util {

std::optional<std::filesystem::path> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::istringstream folders(path);
  std::string folder;
  while (std::getline(folders, folder, ':')) {
    const std::filesystem::path candidate =
        std::filesystem::path(folder.empty() ? "." : folder) / program;
    if (access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) {
      return candidate;
    }
  }
  return std::nullopt;
}

}  // namespace d2k::util
