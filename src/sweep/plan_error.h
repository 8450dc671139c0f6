#pragma once
// A problem in a sweep plan, located like a compiler diagnostic:
// "sweeps/grid.yaml:7:5: runs[2].agent.configs[0]: expected one of none, L1, ...".

#include <filesystem>
#include <stdexcept>
#include <string>

namespace d2k::sweep {

class PlanError : public std::runtime_error {
 public:
  // `line` and `column` are 1-based; 0 when unknown (then they are left out of what()).
  PlanError(const std::filesystem::path& file, int line, int column, const std::string& message)
      : std::runtime_error(file.string() + (line > 0 ? ":" + std::to_string(line) + ":" +
                                                           std::to_string(column)
                                                     : std::string()) +
                           ": " + message),
        message_(message) {}

  // The diagnostic without its location prefix.
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

}  // namespace d2k::sweep
