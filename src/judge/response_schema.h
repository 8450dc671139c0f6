#pragma once
// The JSON the judge must answer with, as a JSON Schema for `response_format` and as the names
// the verification accepts. Field names follow the paper's Appendix C.

#include <array>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "record/judge_assessment.h"

namespace d2k::judge {

inline constexpr std::array<std::string_view, 3> kLevelIds{"L1", "L2", "L3"};

// The anchor names, from the 100 anchor down to the 0 anchor.
const std::array<std::string_view, 5>& band_names(record::JudgeKind kind);

// Per level: implementation evidence 1 to 4 items; design evidence 0 to 4, 0 only with score 0.
inline constexpr int kMaxEvidenceItems = 4;

// The strict schema (every property required, no additional properties) of the reply.
nlohmann::json response_schema(record::JudgeKind kind);
// The schema's name in `response_format.json_schema.name`.
std::string response_schema_name(record::JudgeKind kind);

}  // namespace d2k::judge
