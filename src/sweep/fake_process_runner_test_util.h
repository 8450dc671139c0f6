#pragma once
// A ProcessRunner for tests: commands answered by a script, started processes that end in the
// order and way the test says, with a hook that plays what the process would have done.

#include <deque>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sweep/process_runner.h"

namespace d2k::sweep {

class FakeProcessRunner : public ProcessRunner {
 public:
  struct Started {
    int pid;
    std::vector<std::string> argv;
    Environment environment;
    std::filesystem::path log;
  };

  // Answers run(); throwing std::runtime_error plays a program that is not installed.
  std::function<CommandOutput(const std::vector<std::string>&)> on_run =
      [](const std::vector<std::string>& argv) -> CommandOutput {
    throw std::runtime_error("cannot run " + argv.front());
  };
  // Plays a started process to its end: what it leaves behind, and how it exits.
  std::function<ProcessExit(const Started&)> on_end = [](const Started&) {
    return ProcessExit{true, 0};
  };

  std::vector<std::vector<std::string>> ran;
  std::vector<Started> started;
  size_t most_at_once = 0;

  CommandOutput run(const std::vector<std::string>& argv) override {
    ran.push_back(argv);
    return on_run(argv);
  }

  int start(const std::vector<std::string>& argv, const Environment& environment,
            const std::filesystem::path& log) override {
    const int pid = next_pid_++;
    started.push_back({pid, argv, environment, log});
    running_.push_back(started.back());
    most_at_once = std::max(most_at_once, running_.size());
    return pid;
  }

  // The oldest running process ends first.
  std::pair<int, ProcessExit> wait_any() override {
    if (running_.empty()) throw std::runtime_error("wait_any with nothing running");
    const Started process = running_.front();
    running_.pop_front();
    return {process.pid, on_end(process)};
  }

 private:
  int next_pid_ = 100;
  std::deque<Started> running_;
};

}  // namespace d2k::sweep
