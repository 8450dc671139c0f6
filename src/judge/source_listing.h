#pragma once
// A candidate source file split into numbered lines, as the judge sees it and as its evidence is
// checked against, with each line classified as executable or not (blank, comment, docstring).

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace d2k::judge {

// How comments are recognized. Python: `#` comments and bare string statements (docstrings).
// C-like (CUDA, C++): `//` and `/* */` comments.
enum class SourceLanguage { python, c_like };

// C-like for .cu, .cuh, .cc, .cpp, .cxx, .c, .h, .hpp; Python for everything else.
SourceLanguage language_of(const std::filesystem::path& path);

class SourceListing {
 public:
  // Lines are split at '\n'; a final '\n' ends the last line rather than starting an empty one,
  // and a '\r' before a '\n' is dropped.
  SourceListing(std::string_view text, SourceLanguage language);

  int line_count() const { return static_cast<int>(lines_.size()); }
  // `number` counts from 1.
  const std::string& line(int number) const { return lines_.at(number - 1); }
  // False for a line that is blank, or holds only comments or docstring text.
  bool is_executable(int number) const { return executable_.at(number - 1); }
  // "N: text" per line, N right-aligned to the width of the last number; what the judge reads.
  std::string numbered() const;

 private:
  std::vector<std::string> lines_;
  std::vector<bool> executable_;
};

// Leading spaces and tabs removed; the one normalization evidence quotes are allowed.
std::string_view trim_indentation(std::string_view line);

}  // namespace d2k::judge
