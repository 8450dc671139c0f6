#pragma once
// Loads a local HTML file in headless Chromium (Debian's `chromium`, or $D2K_CHROMIUM), saves a
// screenshot, and collects what the page logged to its console. With --enable-logging=stderr,
// Chromium writes each console message (script errors, console.* calls, Content-Security-Policy
// violations) as a line tagged ":CONSOLE"; the report's page has no script and forbids every
// external load, so any such line is an error. Tests that need the browser skip without it
// unless $D2K_REQUIRE_CHROMIUM is set, as CI sets it (tools/run_tests.sh): the GPU machine has
// no Chromium.

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace d2k::report::testing {

struct PageLoad {
  bool exited = false;
  int status = -1;                   // the exit status when `exited`
  std::vector<std::string> console;  // the ":CONSOLE" lines of Chromium's log
  std::string log;                   // all of stderr, for failure messages
};

inline std::string chromium_binary() {
  const char* env = std::getenv("D2K_CHROMIUM");
  return env != nullptr && *env != '\0' ? env : "chromium";
}

// Whether the browser can be started: an executable on PATH, or at the path $D2K_CHROMIUM gives.
inline bool chromium_available() {
  const std::string name = chromium_binary();
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::istringstream folders(path != nullptr ? path : "");
  for (std::string folder; std::getline(folders, folder, ':');) {
    if (!folder.empty() && access((folder + "/" + name).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// `scratch` holds the browser profile and the captured output. --no-sandbox because tests may
// run as root in a container, where Chromium's sandbox cannot start; the page is our own file.
inline PageLoad load_page(const std::filesystem::path& page, const std::filesystem::path& png,
                          int width, int height, const std::filesystem::path& scratch) {
  const std::filesystem::path err = scratch / "chromium.stderr";
  std::vector<std::string> args = {
      "timeout", "120", chromium_binary(), "--headless", "--no-sandbox", "--disable-gpu",
      "--no-first-run", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
      "--user-data-dir=" + (scratch / "profile").string(),
      "--window-size=" + std::to_string(width) + "," + std::to_string(height),
      "--screenshot=" + png.string(), "file://" + std::filesystem::absolute(page).string()};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  PageLoad load;
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "timeout", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return load;
  int status = 0;
  waitpid(pid, &status, 0);
  load.exited = WIFEXITED(status);
  load.status = load.exited ? WEXITSTATUS(status) : -1;
  std::ifstream in(err);
  std::stringstream text;
  text << in.rdbuf();
  load.log = text.str();
  // ":CONSOLE:1]" in current Chromium, ":CONSOLE(1)]" in older releases.
  const std::regex console_line(R"(:CONSOLE[:(][0-9]+\)?\])");
  std::istringstream lines(load.log);
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, console_line)) load.console.push_back(line);
  }
  return load;
}

struct PngSize {
  uint32_t width = 0;
  uint32_t height = 0;
};

// The size in a PNG's IHDR chunk; empty when the file is not a PNG.
inline std::optional<PngSize> png_size(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char head[24] = {};
  if (!in.read(reinterpret_cast<char*>(head), sizeof head)) return std::nullopt;
  const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (!std::equal(signature, signature + 8, head) || std::string(head + 12, head + 16) != "IHDR") {
    return std::nullopt;
  }
  const auto be32 = [&](int at) {
    return (uint32_t{head[at]} << 24) | (uint32_t{head[at + 1]} << 16) |
           (uint32_t{head[at + 2]} << 8) | uint32_t{head[at + 3]};
  };
  return PngSize{be32(16), be32(20)};
}

}  // namespace d2k::report::testing
