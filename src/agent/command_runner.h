#pragma once
// Where the `bash` tool's commands run. The seam for the sandbox (src/sandbox/): a runner that
// confines the command the way candidates are confined implements this interface, and
// `d2k mcp` passes it to BashTool instead of HostCommandRunner.

#include <cstddef>
#include <filesystem>
#include <stop_token>
#include <string>

#include "native/command.h"

namespace d2k::agent {

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Runs `command` with bash in `cwd`, stdin empty, stdout and stderr together; the command and
  // everything it started are killed after `timeout_seconds`, or as soon as `stop` is requested
  // (the client cancelled the call); at most `output_limit` bytes of output are kept.
  virtual native::CommandResult run(const std::string& command, const std::filesystem::path& cwd,
                                    double timeout_seconds, size_t output_limit,
                                    std::stop_token stop) = 0;
};

// Runs the command directly on this machine, in a process group of its own.
class HostCommandRunner : public CommandRunner {
 public:
  native::CommandResult run(const std::string& command, const std::filesystem::path& cwd,
                            double timeout_seconds, size_t output_limit,
                            std::stop_token stop) override {
    return native::run_command({"bash", "-c", command}, cwd, timeout_seconds, output_limit, stop);
  }
};

}  // namespace d2k::agent
