#pragma once
// The LLM judge's record: one assessment of a candidate implementation or design at the three
// guidance levels (L1 algorithm, L2 dataflow, L3 low-level), as `d2k judge` produces it, the store
// keeps it and the reports read it. docs/judge.md describes how it is made.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace d2k::record {

// What was assessed: a final implementation (JS_impl) or an independent design (JS_design).
enum class JudgeKind { impl, design };

enum class JudgeStatus {
  verified,           // three level scores whose every evidence item passed the checks
  unverified,         // the judge never produced evidence that passed; no scores
  skipped_incorrect,  // an incorrect final submission: all levels 0, the judge not called
  error,              // the endpoint failed (after retries) or the inputs could not be read
};

std::string to_string(JudgeKind kind);
std::optional<JudgeKind> parse_judge_kind(std::string_view text);
std::string to_string(JudgeStatus status);
std::optional<JudgeStatus> parse_judge_status(std::string_view text);

// One cited passage. Implementation evidence cites an inclusive line range of the numbered
// solution; design evidence is a quote only (line_start and line_end stay 0).
struct JudgeEvidence {
  int line_start = 0;
  int line_end = 0;
  std::string quote;
};

struct JudgeLevel {
  std::string id;  // "L1", "L2" or "L3"
  double score = 0.0;
  std::string band;
  std::vector<JudgeEvidence> evidence;
  std::string reason;
  std::string alternative_design;
};

// Tokens as the endpoint reported them, summed over every request of the assessment.
struct TokenUsage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t total_tokens = 0;
  int64_t cached_tokens = 0;  // prompt tokens served from the provider's cache, when reported

  TokenUsage& operator+=(const TokenUsage& other);
};

struct JudgeAssessment {
  int64_t id = 0;          // store row id, 0 until saved
  std::string created_at;  // ISO 8601 UTC
  std::string task_id;
  JudgeKind kind = JudgeKind::impl;
  std::string candidate_path;
  std::string candidate_hash;    // util::hash_file of the candidate, as evaluations use
  std::string template_version;  // the VERSION lines of the templates used, joined with '+'
  std::string template_hash;     // content hash of those template files
  std::string model;
  std::string base_url_host;    // host[:port] of the endpoint; never the key or the path
  std::string response_format;  // json_schema | json_object | none: what the endpoint accepted
  JudgeStatus status = JudgeStatus::error;
  std::vector<JudgeLevel> levels;  // L1, L2, L3 when verified or skipped_incorrect, else empty
  std::optional<double> js;        // mean of the three level scores, when there are scores
  std::string correctness;         // for impl: how correctness was decided ("--correct", ...)
  std::string response;            // the judge's final reply, as received
  std::string error;               // verification errors (unverified) or the failure (error)
  int attempts = 0;                // judge requests answered (1 + evidence repairs)
  TokenUsage usage;
};

// The arithmetic mean of the level scores (JS = (L1 + L2 + L3) / 3 for three levels).
double mean_level_score(const std::vector<JudgeLevel>& levels);

void to_json(nlohmann::json& j, const JudgeEvidence& v);
void from_json(const nlohmann::json& j, JudgeEvidence& v);
void to_json(nlohmann::json& j, const JudgeLevel& v);
void from_json(const nlohmann::json& j, JudgeLevel& v);
void to_json(nlohmann::json& j, const TokenUsage& v);
void to_json(nlohmann::json& j, const JudgeAssessment& v);

}  // namespace d2k::record
