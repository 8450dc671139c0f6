#include "record/judge_assessment.h"

#include "util/enum_names.h"

namespace d2k::record {
namespace {

constexpr util::EnumNames<JudgeKind, 2> kKindNames{{
    {JudgeKind::impl, "impl"},
    {JudgeKind::design, "design"},
}};

constexpr util::EnumNames<JudgeStatus, 4> kStatusNames{{
    {JudgeStatus::verified, "verified"},
    {JudgeStatus::unverified, "unverified"},
    {JudgeStatus::skipped_incorrect, "skipped_incorrect"},
    {JudgeStatus::error, "error"},
}};

}  // namespace

std::string to_string(JudgeKind kind) {
  const char* name = util::find_name(kKindNames, kind);
  return name != nullptr ? name : "?";
}
std::optional<JudgeKind> parse_judge_kind(std::string_view text) {
  return util::find_value(kKindNames, text);
}
std::string to_string(JudgeStatus status) {
  const char* name = util::find_name(kStatusNames, status);
  return name != nullptr ? name : "?";
}
std::optional<JudgeStatus> parse_judge_status(std::string_view text) {
  return util::find_value(kStatusNames, text);
}

TokenUsage& TokenUsage::operator+=(const TokenUsage& other) {
  prompt_tokens += other.prompt_tokens;
  completion_tokens += other.completion_tokens;
  total_tokens += other.total_tokens;
  cached_tokens += other.cached_tokens;
  return *this;
}

double mean_level_score(const std::vector<JudgeLevel>& levels) {
  if (levels.empty()) return 0.0;
  double sum = 0.0;
  for (const JudgeLevel& level : levels) sum += level.score;
  return sum / static_cast<double>(levels.size());
}

void to_json(nlohmann::json& j, const JudgeEvidence& v) {
  j = {{"line_start", v.line_start}, {"line_end", v.line_end}, {"quote", v.quote}};
}

void from_json(const nlohmann::json& j, JudgeEvidence& v) {
  v.line_start = j.value("line_start", 0);
  v.line_end = j.value("line_end", 0);
  v.quote = j.value("quote", "");
}

void to_json(nlohmann::json& j, const JudgeLevel& v) {
  j = {{"id", v.id},         {"score", v.score},
       {"band", v.band},     {"evidence", v.evidence},
       {"reason", v.reason}, {"alternative_design", v.alternative_design}};
}

void from_json(const nlohmann::json& j, JudgeLevel& v) {
  v.id = j.value("id", "");
  v.score = j.value("score", 0.0);
  v.band = j.value("band", "");
  v.evidence = j.value("evidence", std::vector<JudgeEvidence>{});
  v.reason = j.value("reason", "");
  v.alternative_design = j.value("alternative_design", "");
}

void to_json(nlohmann::json& j, const TokenUsage& v) {
  j = {{"prompt_tokens", v.prompt_tokens},
       {"completion_tokens", v.completion_tokens},
       {"total_tokens", v.total_tokens},
       {"cached_tokens", v.cached_tokens}};
}

void to_json(nlohmann::json& j, const JudgeAssessment& v) {
  j = {{"id", v.id},
       {"created_at", v.created_at},
       {"task", v.task_id},
       {"kind", to_string(v.kind)},
       {"candidate_path", v.candidate_path},
       {"candidate_hash", v.candidate_hash},
       {"template_version", v.template_version},
       {"template_hash", v.template_hash},
       {"model", v.model},
       {"base_url_host", v.base_url_host},
       {"response_format", v.response_format},
       {"status", to_string(v.status)},
       {"levels", v.levels},
       {"js", v.js ? nlohmann::json(*v.js) : nlohmann::json(nullptr)},
       {"correctness", v.correctness},
       {"response", v.response},
       {"error", v.error},
       {"attempts", v.attempts},
       {"usage", v.usage}};
}

}  // namespace d2k::record
