#pragma once
// The subcommands, one file each; commands.cc puts them in the table.

#include <filesystem>
#include <functional>
#include <string>

#include "cli/command.h"
#include "store/store.h"
#include "task/task.h"

namespace d2k::cli {

std::function<int()> define_tasks(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_show(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_validate_guidance(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_eval(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_profile(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_results(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_judge(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_report(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_doctor(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_timing_methods(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_reason_codes(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_agent(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_mcp(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_worker(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_sweep(CLI::App& app, const GlobalOptions& global);
std::function<int()> define_store(CLI::App& app, const GlobalOptions& global);

std::filesystem::path tasks_root(const GlobalOptions& global);
// A task id in the tasks folder, or a path to a task folder.
task::Task resolve_task(const GlobalOptions& global, const std::string& name);
std::filesystem::path store_path(const GlobalOptions& global);
// The store at store_path(), checked for writing: commands that record what they do open it
// before any work, so that a store that cannot take the record stops them at once (exit 2).
store::Store open_store_for_writing(const GlobalOptions& global);

}  // namespace d2k::cli
