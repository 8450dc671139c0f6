#include "agent/guidance_config.h"

#include "util/enum_names.h"

namespace d2k::agent {
namespace {

constexpr util::EnumNames<GuidanceConfig, 5> kNames{{
    {GuidanceConfig::none, "none"},
    {GuidanceConfig::l1, "L1"},
    {GuidanceConfig::l1_l2, "L1+L2"},
    {GuidanceConfig::l1_l2_l3, "L1+L2+L3"},
    {GuidanceConfig::design, "design"},
}};

}  // namespace

std::string to_string(GuidanceConfig config) { return util::find_name(kNames, config); }

std::optional<GuidanceConfig> parse_guidance_config(std::string_view text) {
  return util::find_value(kNames, text);
}

int guidance_levels(GuidanceConfig config) {
  switch (config) {
    case GuidanceConfig::l1: return 1;
    case GuidanceConfig::l1_l2: return 2;
    case GuidanceConfig::l1_l2_l3: return 3;
    case GuidanceConfig::none:
    case GuidanceConfig::design: return 0;
  }
  return 0;
}

}  // namespace d2k::agent
