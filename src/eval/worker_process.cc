#include "eval/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sandbox/sandbox.h"
#include "util/text.h"

namespace d2k::eval {

std::string ExitStatus::describe() const {
  if (signaled) return std::string("killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
  if (exited) return "exited with status " + std::to_string(code);
  return "ended in an unknown way";
}

std::filesystem::path current_executable() { return std::filesystem::read_symlink("/proc/self/exe"); }

std::unique_ptr<WorkerProcess> WorkerProcess::start(
    const std::filesystem::path& binary, const std::filesystem::path& log_file,
    const sandbox::Policy* policy,
    const std::vector<std::pair<std::string, std::string>>& environment,
    const std::vector<std::string>& launcher) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw std::runtime_error(std::string("socketpair failed: ") + std::strerror(errno));
  }
  const int log_file_fd = open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int output[2] = {-1, -1};
  if (log_file_fd < 0 || pipe2(output, O_CLOEXEC) != 0) {
    close(fds[0]);
    close(fds[1]);
    if (log_file_fd >= 0) close(log_file_fd);
    throw std::runtime_error("cannot create " + log_file.string());
  }
  const int log = output[1];
  const std::string fd_text = std::to_string(fds[1]);
  std::vector<std::string> command = launcher;
  command.insert(command.end(), {binary.string(), "worker", "--channel-fd", fd_text});
  std::vector<char*> argv;
  for (auto& word : command) argv.push_back(word.data());
  argv.push_back(nullptr);
  // Child: new session (so the whole group can be killed), output to the log, keep only the
  // worker's end of the channel open across exec.
  const auto setup = [&] {
    setsid();
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, STDIN_FILENO);
    fcntl(fds[1], F_SETFD, 0);
    for (const auto& [name, value] : environment) setenv(name.c_str(), value.c_str(), 1);
  };
  const auto exec = [&] {
    execvp(argv[0], argv.data());
  };
  sandbox::Spawned spawned;
  try {
    spawned = policy != nullptr ? sandbox::spawn(*policy, setup, exec)
                                : sandbox::spawn_unsandboxed(setup, exec);
  } catch (...) {
    close(fds[0]);
    close(fds[1]);
    close(log);
    close(output[0]);
    close(log_file_fd);
    throw;
  }
  close(log);
  close(fds[1]);
  auto worker = std::unique_ptr<WorkerProcess>(new WorkerProcess(spawned.pid, fds[0], log_file));
  worker->log_copier_ = std::thread(&WorkerProcess::copy_log, worker.get(), output[0], log_file_fd);
  worker->sandbox_report_ = std::move(spawned.report);
  worker->cgroup_ = std::move(spawned.cgroup);
  return worker;
}

WorkerProcess::WorkerProcess(pid_t pid, int fd, std::filesystem::path log_file)
    : pid_(pid), channel_(std::make_unique<protocol::Channel>(fd)), log_file_(std::move(log_file)) {}

WorkerProcess::~WorkerProcess() {
  if (!reaped_) {
    kill();
    wait();
  }
  stop_log();
}

void WorkerProcess::copy_log(int from, int to) {
  size_t kept = 0;
  bool cut = false;
  char buffer[65536];
  while (true) {
    // Short polls: once the worker is gone, a process that escaped with the pipe holds no one up.
    pollfd ready{from, POLLIN, 0};
    const int polled = poll(&ready, 1, 100);
    if (polled == 0) {
      if (log_closing_) break;
      continue;
    }
    if (polled < 0 && errno == EINTR) continue;
    const ssize_t n = polled > 0 ? read(from, buffer, sizeof buffer) : -1;
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const size_t take = std::min(static_cast<size_t>(n), kLogLimit - kept);
    if (take > 0 && write(to, buffer, take) == static_cast<ssize_t>(take)) kept += take;
    if (take < static_cast<size_t>(n) && !cut) {
      cut = true;
      const std::string note = fmt::format("\n[d2k: the log stops here, at its limit of {} bytes]\n", kLogLimit);
      [[maybe_unused]] const ssize_t written = write(to, note.data(), note.size());
    }
  }
  close(from);
  close(to);
}

void WorkerProcess::stop_log() {
  log_closing_ = true;
  if (log_copier_.joinable()) log_copier_.join();
}

void WorkerProcess::kill() {
  if (reaped_) return;  // the pid may belong to another process by now
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
}

ExitStatus WorkerProcess::wait() {
  if (reaped_) return status_;
  int raw = 0;
  while (waitpid(pid_, &raw, 0) < 0) {
    if (errno != EINTR) return ExitStatus{};
  }
  return reaped(raw);
}

bool WorkerProcess::wait_for(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!reaped_) {
    int raw = 0;
    const pid_t result = waitpid(pid_, &raw, WNOHANG);
    if (result == pid_) {
      reaped(raw);
    } else if (result < 0 && errno != EINTR) {
      return false;
    } else if (std::chrono::steady_clock::now() >= deadline) {
      return false;
    } else {
      usleep(20'000);
    }
  }
  return true;
}

ExitStatus WorkerProcess::reaped(int raw) {
  ExitStatus status;
  reaped_ = true;
  // The group may hold children the candidate started; they die with it.
  ::kill(-pid_, SIGKILL);
  stop_log();
  if (WIFEXITED(raw)) {
    status.exited = true;
    status.code = WEXITSTATUS(raw);
  } else if (WIFSIGNALED(raw)) {
    status.signaled = true;
    status.signal = WTERMSIG(raw);
  }
  status_ = status;
  return status;
}

std::string WorkerProcess::log_tail(size_t limit) const {
  std::ifstream in(log_file_, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return util::tail(text.str(), limit);
}

}  // namespace d2k::eval
