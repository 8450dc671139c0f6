#include "judge/verification.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "judge/response_schema.h"
#include "util/bounded_json.h"

namespace d2k::judge {
namespace {

using nlohmann::json;

constexpr size_t kSnippetBytes = 160;

// `text` as a JSON string literal (control characters and trailing spaces visible), cut to a
// readable length on a UTF-8 boundary.
std::string snippet(std::string_view text) {
  std::string cut(text);
  if (cut.size() > kSnippetBytes) {
    size_t end = kSnippetBytes;
    while (end > 0 && (static_cast<unsigned char>(cut[end]) & 0xC0) == 0x80) --end;
    cut = cut.substr(0, end) + "...";
  }
  return json(cut).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (true) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return lines;
    start = end + 1;
  }
}

bool line_matches(std::string_view quote_line, std::string_view source_line) {
  return trim_indentation(quote_line) == trim_indentation(source_line);
}

// The first line range of `solution` that the quote lines match, if any.
std::optional<std::pair<int, int>> locate(const SourceListing& solution,
                                          const std::vector<std::string_view>& quote) {
  const int count = static_cast<int>(quote.size());
  for (int start = 1; start + count - 1 <= solution.line_count(); ++start) {
    bool all = true;
    for (int i = 0; i < count && all; ++i) all = line_matches(quote[i], solution.line(start + i));
    if (all) return std::make_pair(start, start + count - 1);
  }
  return std::nullopt;
}

// "  12: text" -> "text": the listing's prefix copied into a quote.
std::optional<std::string_view> without_number_prefix(std::string_view line) {
  const std::string_view trimmed = trim_indentation(line);
  size_t digits = 0;
  while (digits < trimmed.size() && std::isdigit(static_cast<unsigned char>(trimmed[digits]))) {
    ++digits;
  }
  if (digits == 0 || trimmed.substr(digits, 2) != ": ") return std::nullopt;
  return trimmed.substr(digits + 2);
}

std::string range_text(int start, int end) {
  return start == end ? fmt::format("line {}", start) : fmt::format("lines {}-{}", start, end);
}

// Hints that help the judge repair a citation: where the quoted text really is, or that the
// quote carries the listing's line numbers.
std::string repair_hint(const SourceListing& solution, const std::vector<std::string_view>& quote) {
  if (const auto found = locate(solution, quote)) {
    return "; that text is at " + range_text(found->first, found->second);
  }
  std::vector<std::string_view> stripped;
  for (std::string_view line : quote) {
    const auto text = without_number_prefix(line);
    if (!text) return "";
    stripped.push_back(*text);
  }
  if (locate(solution, stripped)) {
    return "; the quote includes the listing's line-number prefixes (\"12: \"), which are not "
           "part of the source";
  }
  return "";
}

void collect_strings(const json& j, std::vector<std::string>& out) {
  if (j.is_string()) {
    out.push_back(j.get<std::string>());
  } else if (j.is_structured()) {
    for (const auto& child : j) collect_strings(child, out);
  }
}

// The reply text as JSON. Some servers wrap JSON mode output in a ```json fence; that is removed.
std::optional<json> parse_reply(std::string_view reply, std::vector<std::string>& errors) {
  std::string_view text = reply;
  const auto trim = [](std::string_view s) {
    const size_t first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return std::string_view();
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
  };
  text = trim(text);
  if (text.substr(0, 3) == "```" && text.size() >= 6 && text.substr(text.size() - 3) == "```") {
    const size_t first_newline = text.find('\n');
    text = first_newline == std::string_view::npos
               ? std::string_view()
               : trim(text.substr(first_newline + 1, text.size() - 3 - first_newline - 1));
  }
  json parsed = util::parse_bounded_json_or_discarded(text);
  if (parsed.is_discarded()) {
    errors.push_back("the reply is not valid JSON; answer with one JSON object and nothing else");
    return std::nullopt;
  }
  if (!parsed.is_object()) {
    errors.push_back("the reply must be a JSON object with a \"levels\" array");
    return std::nullopt;
  }
  return parsed;
}

// Reports keys that are missing from `object` or not allowed in it.
bool check_keys(const json& object, std::initializer_list<const char*> keys,
                const std::string& where, std::vector<std::string>& errors) {
  bool ok = true;
  for (const char* key : keys) {
    if (!object.contains(key)) {
      errors.push_back(fmt::format("{}: missing \"{}\"", where, key));
      ok = false;
    }
  }
  const std::set<std::string> allowed(keys.begin(), keys.end());
  for (const auto& [key, _] : object.items()) {
    if (allowed.count(key) == 0) {
      errors.push_back(fmt::format("{}: unexpected field \"{}\"", where, key));
      ok = false;
    }
  }
  return ok;
}

// A JSON integer that fits an int (a line number).
bool is_line_number(const json& j) {
  if (!j.is_number_integer() && !j.is_number_unsigned()) return false;
  const double value = j.get<double>();
  return value >= std::numeric_limits<int>::min() && value <= std::numeric_limits<int>::max();
}

// Checks one evidence item's JSON shape and content; fills `out`.
using EvidenceCheck =
    std::function<void(const json& item, const std::string& where, record::JudgeEvidence& out,
                       std::vector<std::string>& errors)>;

// The checks shared by both kinds: the three records, score, band, list sizes, reason.
Verification verify_reply(std::string_view reply, record::JudgeKind kind,
                          const EvidenceCheck& check_evidence) {
  Verification v;
  const auto parsed = parse_reply(reply, v.errors);
  if (!parsed) return v;
  if (!check_keys(*parsed, {"levels"}, "the reply", v.errors)) return v;
  const json& records = (*parsed)["levels"];
  if (!records.is_array()) {
    v.errors.push_back("\"levels\" must be an array of three records, L1, L2 and L3");
    return v;
  }
  const bool impl = kind == record::JudgeKind::impl;
  std::array<int, 3> seen{};
  std::array<record::JudgeLevel, 3> levels;
  for (size_t index = 0; index < records.size(); ++index) {
    const json& record_json = records[index];
    const std::string position = fmt::format("levels[{}]", index);
    if (!record_json.is_object()) {
      v.errors.push_back(position + ": must be an object");
      continue;
    }
    const auto id_it = record_json.find("id");
    size_t level = kLevelIds.size();
    if (id_it != record_json.end() && id_it->is_string()) {
      for (size_t i = 0; i < kLevelIds.size(); ++i) {
        if (id_it->get<std::string>() == kLevelIds[i]) level = i;
      }
    }
    if (level == kLevelIds.size()) {
      v.errors.push_back(fmt::format("{}: \"id\" must be \"L1\", \"L2\" or \"L3\", got {}",
                                     position,
                                     id_it == record_json.end() ? "nothing" : id_it->dump()));
      continue;
    }
    const std::string where(kLevelIds[level]);
    if (++seen[level] > 1) continue;  // reported once below
    const json* body = &record_json;
    if (impl) {
      if (!check_keys(record_json, {"id", "solution"}, where, v.errors)) continue;
      body = &record_json["solution"];
      if (!body->is_object()) {
        v.errors.push_back(where + ": \"solution\" must be an object");
        continue;
      }
      if (!check_keys(*body, {"score", "band", "evidence", "reason", "alternative_design"}, where,
                      v.errors)) {
        continue;
      }
    } else if (!check_keys(record_json,
                           {"id", "score", "band", "evidence", "reason", "alternative_design"},
                           where, v.errors)) {
      continue;
    }
    record::JudgeLevel& out = levels[level];
    out.id = where;
    const json& score = (*body)["score"];
    bool score_ok = false;
    if (!score.is_number()) {
      v.errors.push_back(
          fmt::format("{}: \"score\" must be a number, got {}", where, score.dump()));
    } else if (!std::isfinite(score.get<double>()) || score.get<double>() < 0.0 ||
               score.get<double>() > 100.0) {
      v.errors.push_back(
          fmt::format("{}: score {} is outside [0, 100]", where, score.get<double>()));
    } else {
      out.score = score.get<double>();
      score_ok = true;
    }
    const json& band = (*body)["band"];
    const auto& names = band_names(kind);
    if (!band.is_string() ||
        std::find(names.begin(), names.end(), band.get<std::string>()) == names.end()) {
      v.errors.push_back(
          fmt::format("{}: band {} is not one of {}", where, band.dump(), fmt::join(names, ", ")));
    } else {
      out.band = band.get<std::string>();
    }
    const json& reason = (*body)["reason"];
    if (!reason.is_string() || reason.get<std::string>().empty()) {
      v.errors.push_back(where +
                         ": \"reason\" must be a non-empty string that says what is "
                         "realized and what is missing");
    } else {
      out.reason = reason.get<std::string>();
    }
    const json& alternative = (*body)["alternative_design"];
    if (!alternative.is_string()) {
      v.errors.push_back(where + ": \"alternative_design\" must be a string");
    } else {
      out.alternative_design = alternative.get<std::string>();
    }
    const json& evidence = (*body)["evidence"];
    if (!evidence.is_array()) {
      v.errors.push_back(where + ": \"evidence\" must be an array");
      continue;
    }
    if (evidence.size() > static_cast<size_t>(kMaxEvidenceItems)) {
      v.errors.push_back(fmt::format("{}: {} evidence items; give at most {}", where,
                                     evidence.size(), kMaxEvidenceItems));
    }
    if (evidence.empty() && impl) {
      v.errors.push_back(where +
                         ": the evidence list is empty; cite 1 to 4 executable passages "
                         "of the solution");
    }
    if (evidence.empty() && !impl && score_ok && out.score > 0.0) {
      v.errors.push_back(
          fmt::format("{}: score {} needs 1 to 4 quotes from the candidate design; a level with no "
                      "relevant passage gets score 0 (absent) and an empty list",
                      where, out.score));
    }
    for (size_t item = 0; item < evidence.size(); ++item) {
      const std::string item_where = fmt::format("{} evidence[{}]", where, item);
      if (!evidence[item].is_object()) {
        v.errors.push_back(item_where + ": must be an object");
        continue;
      }
      record::JudgeEvidence cited;
      check_evidence(evidence[item], item_where, cited, v.errors);
      out.evidence.push_back(std::move(cited));
    }
  }
  for (size_t i = 0; i < kLevelIds.size(); ++i) {
    if (seen[i] == 0) v.errors.push_back(fmt::format("no record for {}", kLevelIds[i]));
    if (seen[i] > 1) {
      v.errors.push_back(fmt::format("{} appears {} times; give exactly one record per level",
                                     kLevelIds[i], seen[i]));
    }
  }
  if (v.ok()) v.levels.assign(levels.begin(), levels.end());
  return v;
}

}  // namespace

DesignText::DesignText(std::string raw) : raw_(std::move(raw)) {
  const json parsed = util::parse_bounded_json_or_discarded(raw_);
  if (!parsed.is_discarded()) collect_strings(parsed, strings_);
}

bool DesignText::contains(std::string_view quote) const {
  if (raw_.find(quote) != std::string::npos) return true;
  for (const std::string& s : strings_) {
    if (s.find(quote) != std::string::npos) return true;
  }
  return false;
}

std::optional<std::string> check_code_citation(const SourceListing& solution,
                                               const record::JudgeEvidence& evidence) {
  const int start = evidence.line_start;
  const int end = evidence.line_end;
  if (start < 1) return fmt::format("line_start must be at least 1, got {}", start);
  if (end > solution.line_count()) {
    return fmt::format("line_end {} is past the last line of the solution (line {})", end,
                       solution.line_count());
  }
  if (start > end) return fmt::format("line_start {} is after line_end {}", start, end);
  const std::vector<std::string_view> quote = split_lines(evidence.quote);
  const int cited = end - start + 1;
  if (static_cast<int>(quote.size()) != cited) {
    return fmt::format("the quote has {} line{} but {} {} {} line{}{}", quote.size(),
                       quote.size() == 1 ? "" : "s", range_text(start, end),
                       cited == 1 ? "is" : "are", cited, cited == 1 ? "" : "s",
                       repair_hint(solution, quote));
  }
  for (int i = 0; i < cited; ++i) {
    const std::string& source = solution.line(start + i);
    if (!line_matches(quote[i], source)) {
      return fmt::format(
          "quote line {} does not match solution line {} (only leading indentation may differ): "
          "expected {}, got {}{}",
          i + 1, start + i, snippet(trim_indentation(source)), snippet(trim_indentation(quote[i])),
          repair_hint(solution, quote));
    }
  }
  for (int line = start; line <= end; ++line) {
    if (solution.is_executable(line)) return std::nullopt;
  }
  return fmt::format("{} hold{} only comments, docstrings or blank lines; cite executable code",
                     range_text(start, end), cited == 1 ? "s" : "");
}

std::optional<std::string> check_design_quote(const DesignText& design, std::string_view quote) {
  const size_t first = quote.find_first_not_of(" \t\r\n");
  const size_t length =
      first == std::string_view::npos ? 0 : quote.find_last_not_of(" \t\r\n") - first + 1;
  if (length < kMinDesignQuoteChars) {
    return fmt::format(
        "the quote {} is {} characters long; quote at least {} characters of the candidate's "
        "own wording",
        snippet(quote), length, kMinDesignQuoteChars);
  }
  if (design.contains(quote)) return std::nullopt;
  // The longest prefix that does occur shows the judge where its copy went wrong.
  size_t low = 0;
  size_t high = quote.size();
  while (low < high) {
    const size_t mid = (low + high + 1) / 2;
    if (design.contains(quote.substr(0, mid))) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  std::string hint;
  if (low >= kMinDesignQuoteChars) {
    hint = fmt::format("; the design has the first {} characters, {}, but not what follows", low,
                       snippet(quote.substr(0, low)));
  }
  return fmt::format("the quote {} does not occur verbatim in the candidate design{}",
                     snippet(quote), hint);
}

Verification verify_impl_reply(std::string_view reply, const SourceListing& solution) {
  return verify_reply(
      reply, record::JudgeKind::impl,
      [&](const json& item, const std::string& where, record::JudgeEvidence& out,
          std::vector<std::string>& errors) {
        if (!check_keys(item, {"line_start", "line_end", "quote"}, where, errors)) {
          return;
        }
        if (!is_line_number(item["line_start"]) || !is_line_number(item["line_end"]) ||
            !item["quote"].is_string()) {
          errors.push_back(where +
                           ": line_start and line_end must be integers and quote "
                           "a string");
          return;
        }
        out.line_start = item["line_start"].get<int>();
        out.line_end = item["line_end"].get<int>();
        out.quote = item["quote"].get<std::string>();
        if (const auto problem = check_code_citation(solution, out)) {
          errors.push_back(fmt::format("{} ({}): {}", where,
                                       range_text(out.line_start, out.line_end), *problem));
        }
      });
}

Verification verify_design_reply(std::string_view reply, const DesignText& design) {
  return verify_reply(reply, record::JudgeKind::design,
                      [&](const json& item, const std::string& where, record::JudgeEvidence& out,
                          std::vector<std::string>& errors) {
                        if (!check_keys(item, {"quote"}, where, errors)) return;
                        if (!item["quote"].is_string()) {
                          errors.push_back(where + ": quote must be a string");
                          return;
                        }
                        out.quote = item["quote"].get<std::string>();
                        if (const auto problem = check_design_quote(design, out.quote)) {
                          errors.push_back(where + ": " + *problem);
                        }
                      });
}

}  // namespace d2k::judge
