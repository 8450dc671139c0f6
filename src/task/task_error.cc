#include "task/task_error.h"

#include <utility>

namespace d2k::task {
namespace {

std::string diagnostic(const std::filesystem::path& file, int line, int column,
                       const std::string& message) {
  std::string text = file.string();
  if (line > 0) {
    text += ":" + std::to_string(line);
    if (column > 0) text += ":" + std::to_string(column);
  }
  return text + ": " + message;
}

}  // namespace

TaskError::TaskError(std::filesystem::path file, int line, int column, std::string message)
    : std::runtime_error(diagnostic(file, line, column, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      message_(std::move(message)) {}

TaskError::TaskError(std::filesystem::path file, std::string message)
    : TaskError(std::move(file), 0, 0, std::move(message)) {}

}  // namespace d2k::task
