#pragma once
// What the sweep end-to-end tests share: a plan over CPU fixture tasks, `d2k sweep run` in the
// background (to kill it midway), and the store's evaluations counted per cell.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <thread>

#include "d2k_run.h"
#include "store/store.h"

namespace d2k::e2e {

// Four cells: the reference and baseline of two CPU fixture tasks.
inline std::string sweep_plan(const std::string& executor) {
  return "tasks: [cpu_scale_add, cpu_ema_state]\n"
         "runs: [reference, baseline]\n"
         "executor: " + executor + "\n";
}

// How many stored evaluations each (task, implementation kind) has.
inline std::map<std::string, int> evaluations_per_cell(const std::filesystem::path& store) {
  store::Query all;
  all.limit = 0;
  std::map<std::string, int> counts;
  for (const auto& e : store::Store::open(store).evaluations().list(all)) ++counts[e.task_id + " " + e.impl_kind];
  return counts;
}

inline const std::map<std::string, int> kOneEvaluationPerCell = {
    {"cpu_ema_state baseline", 1},
    {"cpu_ema_state reference", 1},
    {"cpu_scale_add baseline", 1},
    {"cpu_scale_add reference", 1}};

// `d2k args...` started in the background, stdout and stderr in `log`.
class Started {
 public:
  Started(const std::vector<std::string>& args, const std::filesystem::path& log) {
    pid_ = fork();
    if (pid_ == 0) {
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      std::vector<std::string> text{kBinary.string()};
      text.insert(text.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& arg : text) argv.push_back(arg.data());
      argv.push_back(nullptr);
      execv(kBinary.c_str(), argv.data());
      _exit(127);
    }
  }
  ~Started() {
    if (!reaped_) {
      kill(pid_, SIGKILL);
      wait();
    }
  }
  Started(const Started&) = delete;
  Started& operator=(const Started&) = delete;

  pid_t pid() const { return pid_; }
  // The exit status, or 128 + the signal.
  int wait() {
    int raw = 0;
    while (waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  }

 private:
  pid_t pid_ = 0;
  bool reaped_ = false;
};

// Polls `condition` every 50 ms for at most `seconds`; whether it became true.
inline bool wait_until(const std::function<bool()>& condition, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return condition();
}

// The complete cell records in a sweep's work folder.
inline int records_in(const std::filesystem::path& work_dir) {
  int count = 0;
  if (!std::filesystem::exists(work_dir / "records")) return 0;
  for (const auto& entry : std::filesystem::directory_iterator(work_dir / "records")) {
    if (entry.path().extension() == ".sqlite") ++count;
  }
  return count;
}

// The ids of the processes whose parent is `parent` and whose command line contains `part`.
inline std::vector<pid_t> children_of(pid_t parent, const std::string& part) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_file(entry.path() / "stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    fields >> state >> ppid;
    if (ppid != parent) continue;
    std::string cmdline = read_file(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(part) != std::string::npos) children.push_back(std::stoi(name));
  }
  return children;
}

}  // namespace d2k::e2e
