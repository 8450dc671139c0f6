#pragma once
// A problem in a task folder, located like a compiler diagnostic so an author can jump to it:
// "tasks/x/config.json:12:5: workloads[1].label: expected a string".

#include <filesystem>
#include <stdexcept>
#include <string>

namespace d2k::task {

class TaskError : public std::runtime_error {
 public:
  // `line` and `column` are 1-based; 0 when unknown (then they are left out of what()).
  TaskError(std::filesystem::path file, int line, int column, std::string message);
  TaskError(std::filesystem::path file, std::string message);

  const std::filesystem::path& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  // The diagnostic without its location prefix.
  const std::string& message() const { return message_; }

 private:
  std::filesystem::path file_;
  int line_;
  int column_;
  std::string message_;
};

}  // namespace d2k::task
