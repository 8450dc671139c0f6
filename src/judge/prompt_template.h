#pragma once
// A prompt template file (judge/templates/*.txt): a first line `VERSION <id>`, then the text.
// `{name}` (lower-case letters, digits and '_') is a placeholder; `{{` and `}}` stand for literal
// braces; any other brace is an error, so a typo cannot silently become literal text.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace d2k::judge {

class PromptTemplate {
 public:
  // `origin` names the text in error messages (a file path).
  static PromptTemplate parse(std::string_view file_text, const std::string& origin);
  static PromptTemplate load(const std::filesystem::path& path);

  const std::string& version() const { return version_; }
  // The file as read, VERSION line included; what the template hash covers.
  const std::string& file_text() const { return file_text_; }

  // Replaces every placeholder by its value in one pass over the template. Values are copied,
  // never scanned, so text inside a value (a candidate's "{solution}" or "}}") cannot add
  // placeholders or change the template's structure. Throws std::invalid_argument when a
  // placeholder has no value or a value names no placeholder.
  std::string render(const std::map<std::string, std::string>& values) const;

 private:
  std::string origin_;
  std::string version_;
  std::string file_text_;
  std::vector<std::string> literals_;      // placeholders_.size() + 1 pieces of fixed text
  std::vector<std::string> placeholders_;  // names, in order of appearance
};

}  // namespace d2k::judge
