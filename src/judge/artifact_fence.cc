#include "judge/artifact_fence.h"

#include <fmt/format.h>

#include "util/hash.h"

namespace d2k::judge {

std::string fence_artifact(std::string_view label, std::string_view content) {
  std::string tag;
  for (uint64_t salt = 0;; ++salt) {
    tag = util::to_hex(util::hash_bytes(content.data(), content.size(), salt));
    if (content.find(tag) == std::string_view::npos) break;
  }
  const bool ends_with_newline = !content.empty() && content.back() == '\n';
  return fmt::format("<<<BEGIN {0} [{1}]>>>\n{2}{3}<<<END {0} [{1}]>>>", label, tag, content,
                     ends_with_newline || content.empty() ? "" : "\n");
}

}  // namespace d2k::judge
