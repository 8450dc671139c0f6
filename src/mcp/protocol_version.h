#pragma once
// The MCP revisions d2k's tool server speaks. The four legacy revisions open with `initialize`;
// the modern one (2026-07-28) is stateless and names its version in every request's _meta.

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace d2k::mcp {

// Newest first; the first is what a client asking for an unknown legacy version is offered.
inline constexpr std::array<std::string_view, 4> kLegacyVersions{"2025-11-25", "2025-06-18",
                                                                 "2025-03-26", "2024-11-05"};
inline constexpr std::string_view kModernVersion = "2026-07-28";
// The only revision whose receivers must accept JSON-RPC batches.
inline constexpr std::string_view kBatchingVersion = "2025-03-26";

// Every revision d2k speaks, the modern one first: what an unsupported-version error lists.
std::vector<std::string> supported_versions();

// The version `initialize` answers with: the requested one when d2k speaks it, else the newest
// legacy version (the client then decides whether it can use it).
std::string negotiate_version(std::string_view requested);

}  // namespace d2k::mcp
