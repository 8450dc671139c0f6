#pragma once
// Where each value of a JSON document sits in its text. nlohmann::json keeps no positions, so
// schema errors found after parsing use this map to point at a line and column.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

namespace d2k::task {

struct TextPosition {
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based, in UTF-8 characters; 0 when unknown
};

// The position of byte `offset` of `text` (clamped to the end of the text).
TextPosition text_position(std::string_view text, size_t offset);

class JsonSourceMap {
 public:
  // `text` must be JSON that nlohmann::json::parse accepted.
  explicit JsonSourceMap(std::string_view text);

  // Where the value at `path` ("evaluation.arguments[2]"; "" is the root) starts. A path that is
  // not in the document, such as a missing key, gets its nearest enclosing value's position.
  TextPosition find(std::string_view path) const;

 private:
  std::map<std::string, TextPosition, std::less<>> positions_;
};

}  // namespace d2k::task
