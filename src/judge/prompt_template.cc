#include "judge/prompt_template.h"

#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "util/text.h"

namespace d2k::judge {
namespace {

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

int line_of(std::string_view text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n' ? 1 : 0;
  return line;
}

}  // namespace

PromptTemplate PromptTemplate::parse(std::string_view file_text, const std::string& origin) {
  PromptTemplate t;
  t.origin_ = origin;
  t.file_text_ = file_text;
  constexpr std::string_view kVersion = "VERSION ";
  const size_t first_end = file_text.find('\n');
  const std::string_view first = file_text.substr(0, first_end);
  if (first.substr(0, kVersion.size()) != kVersion || first.size() == kVersion.size()) {
    throw std::invalid_argument(origin + ":1: the first line must be `VERSION <id>`");
  }
  t.version_ = first.substr(kVersion.size());
  const size_t body_start = first_end == std::string_view::npos ? file_text.size() : first_end + 1;

  std::string literal;
  size_t i = body_start;
  while (i < file_text.size()) {
    const char c = file_text[i];
    if ((c == '{' || c == '}') && i + 1 < file_text.size() && file_text[i + 1] == c) {
      literal += c;
      i += 2;
    } else if (c == '{') {
      size_t end = i + 1;
      while (end < file_text.size() && is_name_char(file_text[end])) ++end;
      if (end == i + 1 || end >= file_text.size() || file_text[end] != '}') {
        throw std::invalid_argument(
            fmt::format("{}:{}: '{{' starts no placeholder; write `{{{{` for a literal brace",
                        origin, line_of(file_text, i)));
      }
      t.literals_.push_back(std::move(literal));
      literal.clear();
      t.placeholders_.emplace_back(file_text.substr(i + 1, end - i - 1));
      i = end + 1;
    } else if (c == '}') {
      throw std::invalid_argument(
          fmt::format("{}:{}: unmatched '}}'; write `}}}}` for a literal brace", origin,
                      line_of(file_text, i)));
    } else {
      literal += c;
      ++i;
    }
  }
  t.literals_.push_back(std::move(literal));
  return t;
}

PromptTemplate PromptTemplate::load(const std::filesystem::path& path) {
  return parse(util::read_text_file(path), path.string());
}

std::string PromptTemplate::render(const std::map<std::string, std::string>& values) const {
  const std::set<std::string> used(placeholders_.begin(), placeholders_.end());
  for (const auto& [name, value] : values) {
    if (used.count(name) == 0) {
      throw std::invalid_argument(
          fmt::format("{}: has no placeholder {{{}}} for the value given", origin_, name));
    }
  }
  std::string out = literals_[0];
  for (size_t i = 0; i < placeholders_.size(); ++i) {
    const auto value = values.find(placeholders_[i]);
    if (value == values.end()) {
      throw std::invalid_argument(
          fmt::format("{}: no value for placeholder {{{}}}", origin_, placeholders_[i]));
    }
    out += value->second;
    out += literals_[i + 1];
  }
  return out;
}

}  // namespace d2k::judge
