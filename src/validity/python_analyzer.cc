#include "validity/python_analyzer.h"

#include <cstdlib>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "native/command.h"

namespace d2k::validity {
namespace {

constexpr double kTimeoutSeconds = 60.0;
constexpr size_t kOutputLimit = 4 * 1024 * 1024;

std::filesystem::path default_python() {
  const char* from_env = std::getenv("D2K_PYTHON");
  return from_env != nullptr && *from_env != '\0' ? from_env : D2K_PYTHON_EXECUTABLE;
}

}  // namespace

PythonAnalyzer::PythonAnalyzer()
    : PythonAnalyzer(default_python(),
                     std::filesystem::path(D2K_SOURCE_DIR) / "src" / "validity" / "analyze_python.py") {}

PythonAnalyzer::PythonAnalyzer(std::filesystem::path python, std::filesystem::path script)
    : python_(std::move(python)), script_(std::move(script)) {}

std::vector<record::Finding> PythonAnalyzer::analyze(const std::filesystem::path& entry,
                                                     const task::ImplementationRules& rules) const {
  const auto absolute = std::filesystem::absolute(entry);
  const nlohmann::json request = {{"entry", absolute.string()},
                                  {"workspace", absolute.parent_path().string()},
                                  {"rules", rules}};
  const native::CommandResult result =
      native::run_command({python_.string(), "-I", "-S", "-B", script_.string(), request.dump()},
                          absolute.parent_path(), kTimeoutSeconds, kOutputLimit);
  if (!result.succeeded()) {
    throw std::runtime_error("static analysis of " + entry.string() + " " +
                             result.describe(kTimeoutSeconds) + ":\n" + result.output);
  }
  try {
    return nlohmann::json::parse(result.output).at("findings").get<std::vector<record::Finding>>();
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error("static analysis of " + entry.string() +
                             " printed no findings list: " + error.what());
  }
}

}  // namespace d2k::validity
