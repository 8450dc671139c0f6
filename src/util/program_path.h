#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace d2k::util {

// The full path of the executable `program` found on $PATH (an empty entry is the current
// folder), or nullopt.
std::optional<std::filesystem::path> find_on_path(const std::string& program);

}  // namespace d2k::util
