#pragma once

#include <filesystem>

namespace d2k::util {

// The Python interpreter d2k's workers embed and its static check runs: $D2K_PYTHON, else the one
// found at configure time.
std::filesystem::path python_executable();

}  // namespace d2k::util
