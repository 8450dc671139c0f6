#include "task/json_source_map.h"

#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

namespace d2k::task {
namespace {

std::vector<size_t> line_starts(std::string_view text) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts.push_back(i + 1);
  }
  return starts;
}

TextPosition position_in(std::string_view text, const std::vector<size_t>& starts, size_t offset) {
  offset = std::min(offset, text.size());
  const auto next_line = std::upper_bound(starts.begin(), starts.end(), offset);
  int column = 1;
  for (size_t i = *(next_line - 1); i < offset; ++i) {
    column += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;  // skip UTF-8 continuations
  }
  return {static_cast<int>(next_line - starts.begin()), column};
}

// Walks text that is already known to be valid JSON, recording where every value starts. Every
// step advances, so even unexpected text cannot make it loop.
class Scanner {
 public:
  Scanner(std::string_view text, std::map<std::string, TextPosition, std::less<>>& positions)
      : text_(text), starts_(line_starts(text)), positions_(positions) {}

  void scan() {
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;  // nlohmann skips a UTF-8 byte order mark
    value("");
  }

 private:
  bool done() const { return pos_ >= text_.size(); }

  void skip_space() {
    while (!done() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                       text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  void value(const std::string& path) {
    skip_space();
    if (done()) return;
    // Duplicate keys: nlohmann keeps the last one, so the map does too.
    positions_.insert_or_assign(path, position_in(text_, starts_, pos_));
    switch (text_[pos_]) {
      case '{':
        members(path);
        break;
      case '[':
        elements(path);
        break;
      case '"':
        skip_string();
        break;
      default:
        skip_literal();
    }
  }

  void members(const std::string& path) {
    ++pos_;
    skip_space();
    while (!done() && text_[pos_] != '}') {
      const size_t key_start = pos_;
      skip_string();
      const auto key = nlohmann::json::parse(text_.substr(key_start, pos_ - key_start));
      skip_space();
      ++pos_;  // ':'
      value(path.empty() ? key.get<std::string>() : path + "." + key.get<std::string>());
      skip_separator();
    }
    ++pos_;
  }

  void elements(const std::string& path) {
    ++pos_;
    skip_space();
    for (size_t i = 0; !done() && text_[pos_] != ']'; ++i) {
      value(path + "[" + std::to_string(i) + "]");
      skip_separator();
    }
    ++pos_;
  }

  void skip_separator() {
    skip_space();
    if (!done() && text_[pos_] == ',') ++pos_;
    skip_space();
  }

  void skip_string() {
    ++pos_;
    while (!done() && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
    ++pos_;
  }

  // Numbers, true, false, null.
  void skip_literal() {
    ++pos_;
    while (!done() && std::string_view(",]} \t\r\n").find(text_[pos_]) == std::string_view::npos) {
      ++pos_;
    }
  }

  std::string_view text_;
  std::vector<size_t> starts_;
  std::map<std::string, TextPosition, std::less<>>& positions_;
  size_t pos_ = 0;
};

}  // namespace

TextPosition text_position(std::string_view text, size_t offset) {
  return position_in(text, line_starts(text.substr(0, std::min(offset, text.size()))), offset);
}

JsonSourceMap::JsonSourceMap(std::string_view text) { Scanner(text, positions_).scan(); }

TextPosition JsonSourceMap::find(std::string_view path) const {
  while (true) {
    if (const auto it = positions_.find(path); it != positions_.end()) return it->second;
    if (path.empty()) return {};
    const size_t cut = path.find_last_of(".[");
    path = path.substr(0, cut == std::string_view::npos ? 0 : cut);
  }
}

}  // namespace d2k::task
