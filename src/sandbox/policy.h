#pragma once
// What a sandboxed process may see and do (docs/protocol.md, "Sandbox").

#include <sys/resource.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace d2k::sandbox {

struct Limits {
  std::optional<rlim_t> cpu_seconds;  // RLIMIT_CPU: SIGXCPU, then SIGKILL a second later
  std::optional<rlim_t> file_bytes;   // RLIMIT_FSIZE: a larger write gets SIGXFSZ
  std::optional<rlim_t> processes;    // RLIMIT_NPROC: threads count too
};

struct Policy {
  // Replaced by empty, read-only stand-ins: a folder by an empty one, a file by an empty file.
  std::vector<std::filesystem::path> hidden;
  // Folders hidden except for the listed entries of `writable` inside them: a shared scratch
  // root shows only this process's own scratch folder.
  std::vector<std::filesystem::path> hidden_except_writable;
  // The only places writes may go; everything else is mounted read-only.
  std::vector<std::filesystem::path> writable;
  // Files or folders that stay visible, read-only, even inside a `hidden_except_writable`
  // folder (the candidate's own workspace, its built object, the task).
  std::vector<std::filesystem::path> readable;
  bool isolate_network = true;
  Limits limits;

  // Hides an SQLite database (a d2k store) with the journal files that sit beside it.
  void hide_database(const std::filesystem::path& file) {
    const std::string path = std::filesystem::absolute(file).string();
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) hidden.push_back(path + suffix);
  }
};

}  // namespace d2k::sandbox
