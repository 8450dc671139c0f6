#include "doctor/toolchain_survey.h"

#include <filesystem>
#include <regex>
#include <stdexcept>

#include "native/command.h"

namespace d2k::doctor {
namespace {

constexpr double kProgramTimeoutSeconds = 60.0;
constexpr size_t kOutputLimit = 16 * 1024;

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::string first_line(const std::string& text) {
  const std::string t = trimmed(text);
  return t.substr(0, t.find('\n'));
}

std::string last_line(const std::string& text) {
  const std::string t = trimmed(text);
  const auto newline = t.rfind('\n');
  return newline == std::string::npos ? t : t.substr(newline + 1);
}

// Runs `argv`; the component's version is `version_of(output)`, and a failed run or an empty
// version makes it missing with the program's last line as the reason.
record::ToolchainComponent component(const std::string& name, const std::vector<std::string>& argv,
                                     const ProgramRunner& run,
                                     const std::function<std::string(const std::string&)>& version_of) {
  const ProgramRun result = run(argv);
  const std::string command = native::shell_quote(argv);
  if (!result.succeeded) {
    return {name, "", "`" + command + "` failed: " + last_line(result.output)};
  }
  const std::string version = version_of(result.output);
  if (version.empty()) {
    return {name, "", "`" + command + "` printed no version: " + first_line(result.output)};
  }
  return {name, version, argv.front()};
}

// "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0 (V13.0.88)".
std::string nvcc_release(const std::string& output) {
  static const std::regex release(R"(release ([0-9.]+), (V[0-9.]+))");
  std::smatch match;
  if (!std::regex_search(output, match, release)) return "";
  return match[1].str() + " (" + match[2].str() + ")";
}

}  // namespace

ProgramRun run_program(const std::vector<std::string>& argv) {
  try {
    const native::CommandResult result = native::run_command(
        argv, std::filesystem::current_path(), kProgramTimeoutSeconds, kOutputLimit);
    if (result.succeeded()) return {true, result.output};
    return {false, result.output.empty() ? result.describe(kProgramTimeoutSeconds) : result.output};
  } catch (const std::runtime_error& error) {
    return {false, error.what()};
  }
}

std::vector<record::ToolchainComponent> survey_toolchain(const SurveyInputs& inputs,
                                                         const ProgramRunner& run) {
  std::vector<record::ToolchainComponent> components;
  components.push_back(component(
      "driver", {"nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"}, run,
      [](const std::string& output) { return first_line(output); }));
  if (inputs.driver_cuda_version) {
    components.push_back({"cuda", *inputs.driver_cuda_version, "the CUDA version the driver supports"});
  } else {
    components.push_back({"cuda", "", inputs.no_device_reason});
  }
  components.push_back(component("nvcc", {inputs.nvcc, "--version"}, run, nvcc_release));
  components.push_back(component("host compiler", {inputs.host_compiler, "--version"}, run,
                                 [](const std::string& output) { return first_line(output); }));
  components.push_back(component("python", {inputs.python, "--version"}, run,
                                 [](const std::string& output) { return first_line(output); }));
  for (const char* module : {"torch", "triton"}) {
    const std::string code = std::string("import ") + module + "; print(" + module + ".__version__)";
    components.push_back(component(module, {inputs.python, "-c", code}, run,
                                   [](const std::string& output) { return last_line(output); }));
  }
  return components;
}

}  // namespace d2k::doctor
