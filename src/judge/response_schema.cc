#include "judge/response_schema.h"

namespace d2k::judge {
namespace {

using nlohmann::json;

json strict_object(json properties) {
  json required = json::array();
  for (const auto& [name, _] : properties.items()) required.push_back(name);
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", std::move(required)},
          {"additionalProperties", false}};
}

json string_array(const std::array<std::string_view, 5>& names) {
  json out = json::array();
  for (std::string_view name : names) out.push_back(name);
  return out;
}

}  // namespace

const std::array<std::string_view, 5>& band_names(record::JudgeKind kind) {
  static constexpr std::array<std::string_view, 5> kImpl{
      "complete_implementation", "substantial_implementation", "partial_implementation",
      "isolated_fragment", "absent"};
  static constexpr std::array<std::string_view, 5> kDesign{
      "complete_design", "substantial_design", "partial_design", "isolated_fragment", "absent"};
  return kind == record::JudgeKind::impl ? kImpl : kDesign;
}

json response_schema(record::JudgeKind kind) {
  const bool impl = kind == record::JudgeKind::impl;
  json evidence_item = impl ? strict_object({{"line_start", {{"type", "integer"}, {"minimum", 1}}},
                                             {"line_end", {{"type", "integer"}, {"minimum", 1}}},
                                             {"quote", {{"type", "string"}}}})
                            : strict_object({{"quote", {{"type", "string"}}}});
  json assessment = {
      {"score", {{"type", "number"}, {"minimum", 0}, {"maximum", 100}}},
      {"band", {{"type", "string"}, {"enum", string_array(band_names(kind))}}},
      {"evidence",
       {{"type", "array"},
        {"items", std::move(evidence_item)},
        {"minItems", impl ? 1 : 0},
        {"maxItems", kMaxEvidenceItems}}},
      {"reason", {{"type", "string"}}},
      {"alternative_design", {{"type", "string"}}},
  };
  json id = {{"type", "string"}, {"enum", {"L1", "L2", "L3"}}};
  // The implementation reply nests each level's assessment under "solution" (Appendix C.1).
  json level = impl ? strict_object({{"id", id}, {"solution", strict_object(assessment)}}) : [&] {
    assessment["id"] = id;
    return strict_object(assessment);
  }();
  return strict_object(
      {{"levels", {{"type", "array"}, {"items", level}, {"minItems", 3}, {"maxItems", 3}}}});
}

std::string response_schema_name(record::JudgeKind kind) {
  return kind == record::JudgeKind::impl ? "d2k_judge_impl" : "d2k_judge_design";
}

}  // namespace d2k::judge
