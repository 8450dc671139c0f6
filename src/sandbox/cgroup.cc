#include "sandbox/cgroup.h"

#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace d2k::sandbox {
namespace {

namespace fs = std::filesystem;

const fs::path kHierarchy = "/sys/fs/cgroup";

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

// This process's cgroup in the v2 hierarchy: the path of the "0::" line of /proc/self/cgroup.
fs::path own_cgroup() {
  std::istringstream lines(read_text("/proc/self/cgroup"));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("0::", 0) == 0) return kHierarchy / fs::path(line.substr(3)).relative_path();
  }
  return {};
}

}  // namespace

std::unique_ptr<Cgroup> Cgroup::create(rlim_t memory_bytes, std::string& why) {
  struct statfs info {};
  if (statfs(kHierarchy.c_str(), &info) != 0 || info.f_type != CGROUP2_SUPER_MAGIC) {
    why = kHierarchy.string() + " is not a cgroup v2 hierarchy";
    return nullptr;
  }
  const fs::path parent = own_cgroup();
  if (parent.empty()) {
    why = "this process is in no cgroup v2";
    return nullptr;
  }
  const std::string controllers = read_text(parent / "cgroup.subtree_control");
  if (controllers.find("memory") == std::string::npos) {
    why = (parent / "cgroup.subtree_control").string() + " does not hand the memory controller down";
    return nullptr;
  }
  static std::atomic<int> made{0};
  const fs::path dir = parent / ("d2k-" + std::to_string(getpid()) + "-" + std::to_string(made++));
  std::error_code error;
  if (!fs::create_directory(dir, error)) {
    why = "cannot make " + dir.string() + ": " + error.message();
    return nullptr;
  }
  if (!write_text(dir / "memory.max", std::to_string(memory_bytes))) {
    why = "cannot write " + (dir / "memory.max").string() + ": " + std::strerror(errno);
    fs::remove(dir, error);
    return nullptr;
  }
  // Without this, memory.max would only push the tree's pages out to swap.
  write_text(dir / "memory.swap.max", "0");
  return std::unique_ptr<Cgroup>(new Cgroup(dir, memory_bytes));
}

Cgroup::~Cgroup() {
  write_text(dir_ / "cgroup.kill", "1");
  // The kernel removes a cgroup only once its last process is gone.
  std::error_code error;
  for (int attempt = 0; attempt < 200 && !fs::remove(dir_, error); ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace d2k::sandbox
