#pragma once
// Paths the agent names, kept inside its workspace.

#include <filesystem>
#include <string>

namespace d2k::agent {

// `relative` (a path relative to `workspace`, or absolute but inside it) as a path that stays
// inside `workspace` once every symlink on the way is followed; throws std::runtime_error with
// a message for the model otherwise. The final component need not exist.
std::filesystem::path resolve_in_workspace(const std::filesystem::path& workspace,
                                           const std::string& relative);

}  // namespace d2k::agent
