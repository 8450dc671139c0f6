#include "agent/agent_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <map>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace d2k::agent {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kPollInterval = std::chrono::milliseconds(50);
// Between SIGTERM and SIGKILL: time for the client to stop its MCP server cleanly.
constexpr auto kTerminateGrace = std::chrono::seconds(5);

// d2k's environment with `extra` set on top, as "KEY=value" strings.
std::vector<std::string> merged_environment(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::map<std::string, std::string> variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const size_t equals = text.find('=');
    if (equals != std::string::npos) variables[text.substr(0, equals)] = text.substr(equals + 1);
  }
  for (const auto& [key, value] : extra) variables[key] = value;
  std::vector<std::string> lines;
  for (const auto& [key, value] : variables) lines.push_back(key + "=" + value);
  return lines;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (auto& text : strings) result.push_back(text.data());
  result.push_back(nullptr);
  return result;
}

// Waits for `pid` until `deadline`; true when it was reaped (status in `raw`).
bool wait_until(pid_t pid, Clock::time_point deadline, int& raw) {
  while (Clock::now() < deadline) {
    const pid_t done = waitpid(pid, &raw, WNOHANG);
    if (done == pid) return true;
    if (done < 0 && errno != EINTR) return true;
    std::this_thread::sleep_for(kPollInterval);
  }
  return false;
}

}  // namespace

AgentExit run_agent(const LaunchPlan& plan, const std::filesystem::path& cwd,
                    double timeout_seconds, const std::filesystem::path& stdout_file,
                    const std::filesystem::path& stderr_file) {
  std::vector<std::string> argv = plan.argv;
  std::vector<std::string> environment = merged_environment(plan.environment);
  std::vector<char*> args = pointers(argv);
  std::vector<char*> env = pointers(environment);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  const auto started = Clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(spawned));

  AgentExit exit;
  int raw = 0;
  const auto deadline = started + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(timeout_seconds));
  if (!wait_until(pid, deadline, raw)) {
    exit.timed_out = true;
    kill(-pid, SIGTERM);
    if (!wait_until(pid, Clock::now() + kTerminateGrace, raw)) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &raw, 0) < 0 && errno == EINTR) continue;
    }
  }
  kill(-pid, SIGKILL);  // anything the agent left running in its group
  exit.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  exit.exited = WIFEXITED(raw);
  exit.status = exit.exited ? WEXITSTATUS(raw) : WTERMSIG(raw);
  return exit;
}

}  // namespace d2k::agent
