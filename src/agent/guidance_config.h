#pragma once
// The input configurations of an agent run (§3.1, §3.3): kernel generation without guidance or
// with the first one, two or three guidance levels, or the independent design run.

#include <optional>
#include <string>
#include <string_view>

namespace d2k::agent {

enum class GuidanceConfig { none, l1, l1_l2, l1_l2_l3, design };

// "none", "L1", "L1+L2", "L1+L2+L3", "design".
std::string to_string(GuidanceConfig config);
std::optional<GuidanceConfig> parse_guidance_config(std::string_view text);
// How many guidance levels the workspace receives: 0 to 3 (the design run receives none).
int guidance_levels(GuidanceConfig config);

}  // namespace d2k::agent
