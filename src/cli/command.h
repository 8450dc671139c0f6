#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace d2k::cli {

// Options every subcommand can read.
struct GlobalOptions {
  std::string tasks_root;  // empty: task::default_tasks_root()
  std::string store_path;  // empty: store::Store::default_path()
};

// One row of the subcommand table: how to declare its flags, and what runs it. `run` returns
// the process exit status.
struct Command {
  std::string name;
  std::string summary;
  std::function<std::function<int()>(CLI::App& app, const GlobalOptions& global)> define;
};

// The table, in the order `d2k --help` lists it.
const std::vector<Command>& commands();

// Exit statuses shared by the commands.
inline constexpr int kExitPassed = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

}  // namespace d2k::cli
