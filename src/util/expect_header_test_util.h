#pragma once
// The header a test candidate (an exploit, a fixture solution) starts with: its leading comment
// lines (`#` in Python, `//` in C++ and CUDA C++), of which these are read:
//
//   expect-verdict: invalid        the verdict the evaluator must return
//   expect-reason: side_stream     its reason code
//   expect-message: some words     a part the message must contain (any number of these)
//
// Every test that runs such candidates reads the header here; tools/gpucheck/headers.py reads
// the same lines for the GPU check.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace d2k::util {

struct ExpectHeader {
  std::filesystem::path file;
  std::string verdict;  // empty when the header has none
  std::optional<std::string> reason;
  std::vector<std::string> messages;
};

inline ExpectHeader read_expect_header(const std::filesystem::path& file) {
  const std::string comment = file.extension() == ".py" ? "#" : "//";
  const auto trimmed = [](std::string text) {
    const auto not_space = [](unsigned char c) { return !std::isspace(c); };
    text.erase(text.begin(), std::find_if(text.begin(), text.end(), not_space));
    text.erase(std::find_if(text.rbegin(), text.rend(), not_space).base(), text.end());
    return text;
  };
  ExpectHeader header{file, "", std::nullopt, {}};
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line) && line.rfind(comment, 0) == 0) {
    const std::string body = trimmed(line.substr(comment.size()));
    const auto colon = body.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = body.substr(0, colon);
    const std::string value = trimmed(body.substr(colon + 1));
    if (key == "expect-verdict") header.verdict = value;
    if (key == "expect-reason") header.reason = value;
    if (key == "expect-message") header.messages.push_back(value);
  }
  return header;
}

}  // namespace d2k::util
