#pragma once
// Helpers for end-to-end tests: run the real `d2k` binary in a scratch folder and read what it
// printed.

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/temp_dir.h"

extern char** environ;

namespace d2k::e2e {

// A folder under the temp dir that disappears with the object.
using util::TempDir;

struct RunResult {
  bool exited = false;
  int status = -1;  // exit status when `exited`
  std::string out;
  std::string err;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `binary args...` with `cwd` as its working directory, stdin from /dev/null and stdout and
// stderr captured through files in `cwd`, and waits for it.
inline RunResult run_process(const std::filesystem::path& binary,
                             const std::vector<std::string>& args,
                             const std::filesystem::path& cwd) {
  static int counter = 0;
  const std::string stem = "run" + std::to_string(counter++);
  const auto out_path = cwd / (stem + ".stdout");
  const auto err_path = cwd / (stem + ".stderr");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());

  std::vector<std::string> argv_text{binary.string()};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_text) argv.push_back(arg.data());
  argv.push_back(nullptr);

  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    throw std::runtime_error("cannot start " + binary.string() + ": " + std::strerror(spawned));
  }
  int raw = 0;
  while (waitpid(pid, &raw, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  RunResult result;
  result.exited = WIFEXITED(raw);
  if (result.exited) result.status = WEXITSTATUS(raw);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

// A helper process (a loopback server) that runs while the object lives: started with stdout
// and stderr in `log`, ended with SIGTERM (then SIGKILL) and reaped on destruction.
class BackgroundProcess {
 public:
  BackgroundProcess(const std::filesystem::path& binary, const std::vector<std::string>& args,
                    const std::filesystem::path& cwd, const std::filesystem::path& log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    std::vector<std::string> argv_text{binary.string()};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : argv_text) argv.push_back(arg.data());
    argv.push_back(nullptr);
    const int spawned = posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) throw std::runtime_error("cannot start " + binary.string() + ": " + std::strerror(spawned));
  }
  ~BackgroundProcess() {
    kill(pid_, SIGTERM);
    for (int waited = 0; waited < 50; ++waited) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      usleep(100'000);
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = 0;
};

}  // namespace d2k::e2e
