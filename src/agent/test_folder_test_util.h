#pragma once
// A fresh folder per test, removed afterwards (for the agent layer's tests).

#include <filesystem>
#include <fstream>
#include <string>

#include "util/temp_dir.h"

namespace d2k::agent {

using TestFolder = util::TempDir;

inline void write_text(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace d2k::agent
