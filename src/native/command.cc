#include "native/command.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace d2k::native {
namespace {

using Clock = std::chrono::steady_clock;

// How often the child's state is checked while it prints nothing.
constexpr auto kPollInterval = std::chrono::milliseconds(20);

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Collects the output: the first `limit` bytes, and a count of the rest.
class OutputKeeper {
 public:
  explicit OutputKeeper(size_t limit) : limit_(limit) {}

  void add(const char* data, size_t size) {
    total_ += size;
    if (kept_.size() < limit_ + 4) kept_.append(data, std::min(size, limit_ + 4 - kept_.size()));
  }

  std::string text() const {
    if (total_ <= limit_) return kept_;
    size_t cut = limit_;
    while (cut > 0 && is_continuation(kept_[cut])) --cut;
    return kept_.substr(0, cut) + fmt::format("\n[... {} more bytes]", total_ - cut);
  }

 private:
  size_t limit_;
  size_t total_ = 0;
  std::string kept_;  // up to 4 bytes past the limit, to find a character boundary
};

// Spawn attributes and file actions, released however the spawn goes.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;

  SpawnSetup(int output_fd, const std::filesystem::path& cwd) {
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, output_fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, output_fd, STDERR_FILENO);
    posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    posix_spawnattr_init(&attributes);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setpgroup(&attributes, 0);  // its own group: one kill reaches its children
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

class Pipe {
 public:
  Pipe() {
    if (pipe2(fds_, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  }
  ~Pipe() {
    close_write();
    if (fds_[0] >= 0) close(fds_[0]);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int read_end() const { return fds_[0]; }
  int write_end() const { return fds_[1]; }
  void close_write() {
    if (fds_[1] >= 0) close(fds_[1]);
    fds_[1] = -1;
  }

 private:
  int fds_[2] = {-1, -1};
};

// Reads what is available now; returns false at end of file.
bool read_available(int fd, OutputKeeper& output) {
  char buffer[8192];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n > 0) output.add(buffer, static_cast<size_t>(n));
  return n > 0 || (n < 0 && errno == EINTR);
}

}  // namespace

std::string CommandResult::describe(double timeout_seconds) const {
  if (timed_out) return fmt::format("killed after {:g} s (time limit)", timeout_seconds);
  if (cancelled) return "killed: the call was cancelled";
  if (exited) return fmt::format("exited with status {}", status);
  return fmt::format("killed by signal {} ({})", status, strsignal(status));
}

CommandResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          double timeout_seconds, size_t output_limit, std::stop_token stop) {
  if (argv.empty()) throw std::invalid_argument("run_command: empty argv");
  const auto started = Clock::now();
  const auto deadline = started + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(timeout_seconds));
  Pipe pipe;
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  {
    SpawnSetup setup(pipe.write_end(), cwd);
    const int spawned =
        posix_spawnp(&pid, args[0], &setup.actions, &setup.attributes, args.data(), environ);
    if (spawned != 0) {
      throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(spawned));
    }
  }
  pipe.close_write();

  CommandResult result;
  OutputKeeper output(output_limit);
  bool open = true;
  int raw = 0;
  bool reaped = false;
  // Read until the output closes and the child has exited, or the time is up.
  while (!reaped) {
    const bool late = Clock::now() >= deadline;
    if (late || stop.stop_requested()) {
      (late ? result.timed_out : result.cancelled) = true;
      kill(-pid, SIGKILL);
      while (waitpid(pid, &raw, 0) < 0 && errno == EINTR) continue;
      break;
    }
    if (open) {
      pollfd readable{pipe.read_end(), POLLIN, 0};
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      const auto wait = std::clamp<std::chrono::milliseconds>(left, {}, kPollInterval);
      if (poll(&readable, 1, static_cast<int>(wait.count())) > 0) {
        open = read_available(pipe.read_end(), output);
      }
    } else {
      std::this_thread::sleep_for(kPollInterval);
    }
    reaped = waitpid(pid, &raw, WNOHANG) == pid;
  }
  // Whatever the child left in the pipe, then anything it left running in its group.
  while (open) {
    pollfd readable{pipe.read_end(), POLLIN, 0};
    if (poll(&readable, 1, 0) <= 0) break;
    open = read_available(pipe.read_end(), output);
  }
  kill(-pid, SIGKILL);

  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  result.output = output.text();
  if (!result.timed_out && !result.cancelled) {
    result.exited = WIFEXITED(raw);
    result.status = result.exited ? WEXITSTATUS(raw) : WTERMSIG(raw);
  }
  return result;
}

std::string shell_quote(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) {
    if (!line.empty()) line += ' ';
    const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("-_./=,:+@%", c) != nullptr;
    });
    if (plain) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

}  // namespace d2k::native
