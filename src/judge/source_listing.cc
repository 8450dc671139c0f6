#include "judge/source_listing.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

namespace d2k::judge {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }
bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_string_prefix(std::string_view word) {
  return word.size() <= 2 && std::all_of(word.begin(), word.end(), [](char c) {
           return std::string_view("rRbBuUfF").find(c) != std::string_view::npos;
         });
}

// Marks, per line, whether any character outside comments and docstrings is on it. A string
// literal that starts a logical line and is followed only by a comment or the line's end is a
// bare string statement (a docstring or a commented-out block): it executes nothing.
class PythonScanner {
 public:
  PythonScanner(std::string_view text, std::vector<bool>& code) : text_(text), code_(code) {}

  void run() {
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '\n') {
        newline();
      } else if (is_space(c)) {
        ++i_;
      } else if (c == '\\' && i_ + 1 < text_.size() && text_[i_ + 1] == '\n') {
        i_ += 2;  // explicit line continuation: the logical line goes on
        ++line_;
      } else if (c == '#') {
        while (i_ < text_.size() && text_[i_] != '\n') ++i_;
      } else if (c == '"' || c == '\'') {
        string_literal(i_);
      } else if (is_identifier_char(c)) {
        size_t end = i_;
        while (end < text_.size() && is_identifier_char(text_[end])) ++end;
        if (end < text_.size() && (text_[end] == '"' || text_[end] == '\'') &&
            is_string_prefix(text_.substr(i_, end - i_))) {
          string_literal(i_, end);
        } else {
          mark_code();
          i_ = end;
        }
      } else {
        if (c == '(' || c == '[' || c == '{') ++depth_;
        if ((c == ')' || c == ']' || c == '}') && depth_ > 0) --depth_;
        mark_code();
        ++i_;
      }
    }
  }

 private:
  void newline() {
    ++i_;
    ++line_;
    if (depth_ == 0) logical_start_ = true;
  }

  void mark_code() {
    if (line_ < code_.size()) code_[line_] = true;
    logical_start_ = false;
  }

  // A literal whose prefix starts at `start` and whose opening quote is at `quote_at`.
  void string_literal(size_t start, size_t quote_at = std::string_view::npos) {
    if (quote_at == std::string_view::npos) quote_at = start;
    const char quote = text_[quote_at];
    const bool triple = text_.compare(quote_at, 3, std::string(3, quote)) == 0;
    const size_t first_line = line_;
    const bool at_statement_start = logical_start_;
    size_t j = quote_at + (triple ? 3 : 1);
    while (j < text_.size()) {
      const char c = text_[j];
      if (c == '\\' && j + 1 < text_.size()) {
        if (text_[j + 1] == '\n') ++line_;
        j += 2;
      } else if (c == '\n') {
        if (!triple) break;  // unterminated single-quoted string: stop at the line's end
        ++line_;
        ++j;
      } else if (triple && text_.compare(j, 3, std::string(3, quote)) == 0) {
        j += 3;
        break;
      } else if (!triple && c == quote) {
        ++j;
        break;
      } else {
        ++j;
      }
    }
    size_t after = j;
    while (after < text_.size() && is_space(text_[after])) ++after;
    const bool bare = at_statement_start &&
                      (after == text_.size() || text_[after] == '\n' || text_[after] == '#');
    if (!bare) {
      for (size_t line = first_line; line <= line_ && line < code_.size(); ++line) {
        code_[line] = true;
      }
    }
    logical_start_ = false;
    i_ = j;
  }

  std::string_view text_;
  std::vector<bool>& code_;
  size_t i_ = 0;
  size_t line_ = 0;
  int depth_ = 0;
  bool logical_start_ = true;
};

// `//` and `/* */` comments; string and character literals are code (a "//" inside one is not a
// comment).
void scan_c_like(std::string_view text, std::vector<bool>& code) {
  size_t line = 0;
  auto mark = [&] {
    if (line < code.size()) code[line] = true;
  };
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (is_space(c)) {
      ++i;
    } else if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (text.compare(i, 2, "/*") == 0) {
      i += 2;
      while (i < text.size() && text.compare(i, 2, "*/") != 0) {
        if (text[i] == '\n') ++line;
        ++i;
      }
      i = std::min(i + 2, text.size());
    } else if (c == '"' || c == '\'') {
      mark();
      ++i;
      while (i < text.size() && text[i] != c && text[i] != '\n') {
        i += text[i] == '\\' && i + 1 < text.size() && text[i + 1] != '\n' ? 2 : 1;
      }
      if (i < text.size() && text[i] == c) ++i;
    } else {
      mark();
      ++i;
    }
  }
}

}  // namespace

SourceLanguage language_of(const std::filesystem::path& path) {
  static constexpr std::array<std::string_view, 8> kCLike{".cu",  ".cuh", ".cc", ".cpp",
                                                          ".cxx", ".c",   ".h",  ".hpp"};
  const std::string extension = path.extension().string();
  return std::find(kCLike.begin(), kCLike.end(), extension) != kCLike.end()
             ? SourceLanguage::c_like
             : SourceLanguage::python;
}

SourceListing::SourceListing(std::string_view text, SourceLanguage language) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!last && !line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines_.emplace_back(line);
    start = end + 1;
  }
  // The scanners read the normalized lines, so their line count is exactly lines_'s.
  std::string joined;
  for (const std::string& line : lines_) joined += line + '\n';
  executable_.assign(lines_.size(), false);
  if (language == SourceLanguage::python) {
    PythonScanner(joined, executable_).run();
  } else {
    scan_c_like(joined, executable_);
  }
}

std::string SourceListing::numbered() const {
  const size_t width = std::to_string(lines_.size()).size();
  std::string out;
  for (size_t i = 0; i < lines_.size(); ++i) {
    out += fmt::format("{:>{}}: {}\n", i + 1, width, lines_[i]);
  }
  return out;
}

std::string_view trim_indentation(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t");
  return first == std::string_view::npos ? std::string_view() : line.substr(first);
}

}  // namespace d2k::judge
