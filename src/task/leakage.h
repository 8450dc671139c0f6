#pragma once
// Text checks that keep an expert's design and a task's history out of what agents see
// (docs/task-format.md, "What agents see"): task_description.md reaches every agent, including
// the unguided one, so it must not share phrases with the guidance or the expert's notes.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace d2k::task {

// The length of phrase that counts as shared: long enough that common wording does not match.
inline constexpr size_t kLeakPhraseWords = 8;

// Every run of `words` consecutive words that occurs in both texts, sorted and unique. Words are
// runs of letters and digits, compared in lower case, so markup and punctuation do not hide a
// copied sentence.
std::vector<std::string> shared_phrases(std::string_view a, std::string_view b,
                                        size_t words = kLeakPhraseWords);

// Dates (2026-12-01) and commit hashes (7 to 40 hexadecimal digits, mixing letters and digits)
// in `text`, in order of appearance: a task's text states the problem, not when or where it was
// measured.
std::vector<std::string> dates_and_commits(std::string_view text);

}  // namespace d2k::task
