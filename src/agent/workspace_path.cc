#include "agent/workspace_path.h"

#include <algorithm>
#include <stdexcept>

namespace d2k::agent {
namespace fs = std::filesystem;

fs::path resolve_in_workspace(const fs::path& workspace, const std::string& relative) {
  if (relative.empty()) throw std::runtime_error("the path is empty");
  if (relative.find('\0') != std::string::npos) throw std::runtime_error("the path contains a NUL byte");
  const fs::path root = fs::canonical(workspace);
  const fs::path given(relative);
  // weakly_canonical follows every symlink that exists, so a link pointing out is caught too.
  const fs::path resolved = fs::weakly_canonical(given.is_absolute() ? given : root / given);
  const auto [root_end, unused] = std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
  if (root_end != root.end()) {
    throw std::runtime_error("'" + relative + "' is outside the workspace; paths are relative to " +
                             root.string());
  }
  return resolved;
}

}  // namespace d2k::agent
