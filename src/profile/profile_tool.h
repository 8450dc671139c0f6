#pragma once
// The profilers `d2k profile` wraps a worker in (docs/profiling.md).

#include <filesystem>
#include <string>
#include <vector>

namespace d2k::profile {

enum class Tool { ncu, sanitizer };

// "ncu" or "sanitizer"; throws std::runtime_error naming both for anything else.
Tool parse_tool(const std::string& name);
// The executable each tool runs: "ncu" or "compute-sanitizer".
std::string tool_executable(Tool tool);

// The compute-sanitizer tools `--check` accepts; memcheck is the default.
inline constexpr const char* kSanitizerChecks[] = {"memcheck", "racecheck", "initcheck", "synccheck"};

// A profiler's command line, which the worker's own command follows, and the files it writes.
struct ToolCommand {
  std::vector<std::string> launcher;
  std::filesystem::path report;  // what to open afterwards
  std::filesystem::path log;     // the tool's own messages
};

// The command line of `tool` (found at `executable`) that writes its report for `name` into
// `output_dir`. Nsight Compute starts with profiling off, so it profiles only the calls the
// worker makes between cuProfilerStart and cuProfilerStop, every kernel with the full metric
// set, named by the NVTX ranges around the calls; compute-sanitizer runs `check` over the worker.
ToolCommand tool_command(Tool tool, const std::filesystem::path& executable,
                         const std::string& check, const std::filesystem::path& output_dir,
                         const std::string& name);

}  // namespace d2k::profile
