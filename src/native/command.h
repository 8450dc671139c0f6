#pragma once

#include <cstddef>
#include <filesystem>
#include <stop_token>
#include <string>
#include <vector>

namespace d2k::native {

// How a command ended, and what it printed on stdout and stderr together (the order a terminal
// would show), kept verbatim up to a bound.
struct CommandResult {
  bool timed_out = false;  // killed, with its process group, at the time limit
  bool cancelled = false;  // killed, with its process group, because a stop was requested
  bool exited = false;     // ended by exit() rather than a signal
  int status = -1;         // exit status when `exited`, else the signal number
  std::string output;      // the first bytes of the output, with a marker when cut
  double seconds = 0.0;

  bool succeeded() const { return exited && status == 0; }
  // "exited with status 1", "killed by signal 11 (Segmentation fault)", "killed after 300 s".
  std::string describe(double timeout_seconds) const;
};

// Runs argv[0] (searched on PATH) with `argv` in `cwd`, stdin from /dev/null, in a process group
// of its own so that the compiler's children die with it. After `timeout_seconds` the group is
// killed, and so it is as soon as `stop` is requested. Keeps at most `output_limit` bytes of
// output, cut on a UTF-8 boundary. Throws std::runtime_error when the program cannot be started.
CommandResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          double timeout_seconds, size_t output_limit,
                          std::stop_token stop = {});

// argv as one line a POSIX shell would split back into the same words.
std::string shell_quote(const std::vector<std::string>& argv);

}  // namespace d2k::native
