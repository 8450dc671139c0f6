#include "mcp/protocol_version.h"

#include <algorithm>

namespace d2k::mcp {

std::vector<std::string> supported_versions() {
  std::vector<std::string> versions{std::string(kModernVersion)};
  versions.insert(versions.end(), kLegacyVersions.begin(), kLegacyVersions.end());
  return versions;
}

std::string negotiate_version(std::string_view requested) {
  const bool known = std::find(kLegacyVersions.begin(), kLegacyVersions.end(), requested) !=
                     kLegacyVersions.end();
  return std::string(known ? requested : kLegacyVersions.front());
}

}  // namespace d2k::mcp
