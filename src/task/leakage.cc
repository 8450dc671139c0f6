#include "task/leakage.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

namespace d2k::task {
namespace {

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::set<std::string> phrases_of(std::string_view text, size_t length) {
  const std::vector<std::string> words = words_of(text);
  std::set<std::string> phrases;
  for (size_t start = 0; start + length <= words.size(); ++start) {
    std::string phrase = words[start];
    for (size_t i = start + 1; i < start + length; ++i) phrase += " " + words[i];
    phrases.insert(std::move(phrase));
  }
  return phrases;
}

}  // namespace

std::vector<std::string> shared_phrases(std::string_view a, std::string_view b, size_t words) {
  const std::set<std::string> left = phrases_of(a, words);
  const std::set<std::string> right = phrases_of(b, words);
  std::vector<std::string> shared;
  std::set_intersection(left.begin(), left.end(), right.begin(), right.end(),
                        std::back_inserter(shared));
  return shared;
}

std::vector<std::string> dates_and_commits(std::string_view text) {
  static const std::regex kCandidate(R"(\b(\d{4}-\d{2}-\d{2}|[0-9a-fA-F]{7,40})\b)");
  static const std::regex kDate(R"(\d{4}-\d{2}-\d{2})");
  std::vector<std::string> found;
  const std::string copy(text);
  for (auto it = std::sregex_iterator(copy.begin(), copy.end(), kCandidate);
       it != std::sregex_iterator(); ++it) {
    const std::string match = it->str();
    const bool date = std::regex_match(match, kDate);
    const bool has_digit = std::any_of(match.begin(), match.end(), ::isdigit);
    const bool has_letter = std::any_of(match.begin(), match.end(), ::isalpha);
    if (date || (has_digit && has_letter)) found.push_back(match);
  }
  return found;
}

}  // namespace d2k::task
