#include "profile/profile_tool.h"

#include <stdexcept>

namespace d2k::profile {

Tool parse_tool(const std::string& name) {
  if (name == "ncu") return Tool::ncu;
  if (name == "sanitizer") return Tool::sanitizer;
  throw std::runtime_error("unknown profiling tool '" + name + "' (known: ncu, sanitizer)");
}

std::string tool_executable(Tool tool) { return tool == Tool::ncu ? "ncu" : "compute-sanitizer"; }

ToolCommand tool_command(Tool tool, const std::filesystem::path& executable,
                         const std::string& check, const std::filesystem::path& output_dir,
                         const std::string& name) {
  ToolCommand command;
  if (tool == Tool::ncu) {
    const auto base = output_dir / name;
    command.report = output_dir / (name + ".ncu-rep");
    command.log = output_dir / (name + ".ncu.log");
    command.launcher = {executable.string(), "--profile-from-start", "off", "--nvtx",
                        "--set",             "full",                 "--force-overwrite",
                        "--log-file",        command.log.string(),   "--export",
                        base.string()};
    return command;
  }
  command.report = output_dir / (name + "." + check + ".log");
  command.log = command.report;
  command.launcher = {executable.string(), "--tool", check, "--log-file", command.report.string()};
  return command;
}

}  // namespace d2k::profile
