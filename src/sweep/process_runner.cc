#include "sweep/process_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace d2k::sweep {
namespace {

ProcessExit exit_of(int status) {
  if (WIFEXITED(status)) return {true, WEXITSTATUS(status)};
  return {false, WTERMSIG(status)};
}

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const std::string& arg : argv) out.push_back(const_cast<char*>(arg.c_str()));
  out.push_back(nullptr);
  return out;
}

// In the child, before exec: die with the parent, and report exec failure as status 127.
[[noreturn]] void exec_child(const std::vector<std::string>& argv, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the parent died before the line above
  std::vector<char*> args = c_argv(argv);
  execvp(args[0], args.data());
  fmt::print(stderr, "d2k sweep: cannot run {}: {}\n", argv[0], std::strerror(errno));
  _exit(127);
}

}  // namespace

std::string ProcessExit::describe() const {
  if (exited) return fmt::format("exited with status {}", status);
  return fmt::format("killed by signal {} ({})", status, strsignal(status));
}

CommandOutput HostProcessRunner::run(const std::vector<std::string>& argv) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
  if (pid == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, STDIN_FILENO);
    exec_child(argv, parent);
  }
  close(pipe_fds[1]);
  CommandOutput output;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n > 0) {
      output.out.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  output.exit = exit_of(status);
  if (output.exit.exited && output.exit.status == 127) {
    throw std::runtime_error("cannot run " + argv.front());
  }
  return output;
}

int HostProcessRunner::start(const std::vector<std::string>& argv, const Environment& environment,
                             const std::filesystem::path& log) {
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    throw std::runtime_error("cannot open " + log.string() + ": " + std::strerror(errno));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
  if (pid == 0) {
    for (const auto& [name, value] : environment) setenv(name.c_str(), value.c_str(), 1);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, STDIN_FILENO);
    exec_child(argv, parent);
  }
  close(log_fd);
  return pid;
}

std::pair<int, ProcessExit> HostProcessRunner::wait_any() {
  int status = 0;
  pid_t pid;
  while ((pid = waitpid(-1, &status, 0)) < 0 && errno == EINTR) {
  }
  if (pid < 0) throw std::runtime_error("waitpid: " + std::string(std::strerror(errno)));
  return {pid, exit_of(status)};
}

}  // namespace d2k::sweep
