#include "eval/worker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

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
  const int log = open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error("cannot create " + log_file.string());
  }
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
    throw;
  }
  close(log);
  close(fds[1]);
  auto worker = std::unique_ptr<WorkerProcess>(new WorkerProcess(spawned.pid, fds[0], log_file));
  worker->sandbox_report_ = std::move(spawned.report);
  return worker;
}

WorkerProcess::WorkerProcess(pid_t pid, int fd, std::filesystem::path log_file)
    : pid_(pid), channel_(std::make_unique<protocol::Channel>(fd)), log_file_(std::move(log_file)) {}

WorkerProcess::~WorkerProcess() {
  if (!reaped_) {
    kill();
    wait();
  }
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
