#pragma once
// What a sandboxed process may see and do (docs/protocol.md, "Sandbox").

#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace d2k::sandbox {

struct Limits {
  std::optional<rlim_t> cpu_seconds;  // RLIMIT_CPU: SIGXCPU, then SIGKILL a second later
  std::optional<rlim_t> file_bytes;   // RLIMIT_FSIZE: a larger write gets SIGXFSZ
  std::optional<rlim_t> processes;    // RLIMIT_NPROC: threads count too
  // Bytes of memory: a cgroup's memory.max where one can be made, else RLIMIT_DATA (heap and
  // private mappings). Never RLIMIT_AS: CUDA reserves far more address space than it uses.
  std::optional<rlim_t> memory_bytes;
};

// A filesystem built from nothing for the program: only these host paths (at their own paths,
// read-only), the policy's readable and writable entries, and an empty /dev holding the listed
// device nodes. Symbolic links on the way to each path are recreated, so /lib -> usr/lib still
// resolves.
struct MinimalRoot {
  std::vector<std::filesystem::path> system;   // the interpreter, its libraries, compilers
  std::vector<std::filesystem::path> devices;  // /dev entries: null, urandom, the GPU's nodes
  std::filesystem::path tmp;  // a writable host folder shown at /tmp and /dev/shm
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
  // Without it the host's tree stays visible, masked by `hidden`; with it, only what it lists
  // (and `readable`, `writable`) exists. Where it cannot be built, the masks apply instead.
  std::optional<MinimalRoot> minimal_root;
  bool isolate_network = true;
  Limits limits;

  // Hides an SQLite database (a d2k store) with the journal files that sit beside it.
  void hide_database(const std::filesystem::path& file) {
    const std::string path = std::filesystem::absolute(file).string();
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) hidden.push_back(path + suffix);
  }

  // Hides the history of every repository `path` lies in: a `.git` holds every file the
  // repository ever had, answer keys included. A worktree's `.git` is a file naming the
  // repository's own folder, which is hidden too. And the host's password hashes.
  void hide_repositories(const std::filesystem::path& path) {
    namespace fs = std::filesystem;
    std::error_code error;
    for (auto folder = fs::absolute(path); ; folder = folder.parent_path()) {
      const fs::path git = folder / ".git";
      if (fs::is_regular_file(git, error)) {
        std::ifstream in(git);
        std::string line;
        std::getline(in, line);
        if (line.rfind("gitdir: ", 0) == 0) {
          const std::string named = line.substr(8);
          const size_t worktrees = named.find("/worktrees/");
          hidden.emplace_back(worktrees == std::string::npos ? named : named.substr(0, worktrees));
        }
      }
      if (fs::exists(git, error)) hidden.push_back(git);
      if (folder == folder.root_path()) break;
    }
    for (const char* secret : {"/etc/shadow", "/etc/gshadow"}) hidden.emplace_back(secret);
  }
};

}  // namespace d2k::sandbox
