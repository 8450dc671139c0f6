#pragma once
// Strict checks of the judge's reply, with error messages precise enough to be sent back to the
// judge as an evidence-repair request. Pure functions: no I/O. docs/judge.md states the rules.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "judge/source_listing.h"
#include "record/judge_assessment.h"

namespace d2k::judge {

// A candidate design, as design quotes are checked against it: the file's text, and, when the
// file is JSON, each string value in it decoded (so a quote of text that the file holds as
// `\"` or `\n` escapes is found too).
class DesignText {
 public:
  explicit DesignText(std::string raw);
  bool contains(std::string_view quote) const;
  const std::string& raw() const { return raw_; }

 private:
  std::string raw_;
  std::vector<std::string> strings_;
};

// A design quote shorter than this (after trimming) is refused: a word or two occurs anywhere.
inline constexpr size_t kMinDesignQuoteChars = 12;

// The outcome of checking one reply: on success the three levels, L1 to L3; else every problem
// found, each naming the level and the evidence index.
struct Verification {
  std::vector<record::JudgeLevel> levels;
  std::vector<std::string> errors;

  bool ok() const { return errors.empty(); }
};

// One implementation citation against the solution. The rule: lines line_start..line_end
// (inclusive, from 1) must exist; the quote, split at '\n', must have one line per cited line;
// each quote line, with its leading spaces and tabs removed, must equal the cited line with its
// leading spaces and tabs removed; everything else (inner and trailing whitespace included)
// must match exactly; and at least one cited line must be executable (not blank, comment or
// docstring). Returns the problem, or nothing when the citation holds.
std::optional<std::string> check_code_citation(const SourceListing& solution,
                                               const record::JudgeEvidence& evidence);

// One design quote: at least kMinDesignQuoteChars long and found verbatim in the design.
std::optional<std::string> check_design_quote(const DesignText& design, std::string_view quote);

// The reply text (one JSON object, optionally inside a ```json fence) checked in full.
Verification verify_impl_reply(std::string_view reply, const SourceListing& solution);
Verification verify_design_reply(std::string_view reply, const DesignText& design);

}  // namespace d2k::judge
