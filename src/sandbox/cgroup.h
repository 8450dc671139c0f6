#pragma once
// A cgroup v2 of its own for one sandboxed process tree: memory.max bounds the tree's memory and
// cgroup.kill ends every process in it, wherever it moved. Made below this process's own cgroup,
// where the hierarchy is cgroup v2, writable, and hands the memory controller down.

#include <sys/resource.h>

#include <filesystem>
#include <memory>
#include <string>

namespace d2k::sandbox {

class Cgroup {
 public:
  // Null, with the reason in `why`, where no such cgroup can be made.
  static std::unique_ptr<Cgroup> create(rlim_t memory_bytes, std::string& why);
  // Kills what is left in it and removes it.
  ~Cgroup();
  Cgroup(const Cgroup&) = delete;
  Cgroup& operator=(const Cgroup&) = delete;

  // A process that writes its pid here enters the cgroup, its later children with it.
  std::filesystem::path procs() const { return dir_ / "cgroup.procs"; }
  rlim_t memory_bytes() const { return memory_bytes_; }

 private:
  Cgroup(std::filesystem::path dir, rlim_t memory_bytes) : dir_(std::move(dir)), memory_bytes_(memory_bytes) {}

  std::filesystem::path dir_;
  rlim_t memory_bytes_;
};

}  // namespace d2k::sandbox
