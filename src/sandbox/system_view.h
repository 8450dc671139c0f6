#pragma once
// What a minimal root (policy.h) must hold for a worker or an agent's command to run, derived
// from the host: the interpreter's own view of where it lives, the loader's cache, the libraries
// this process has mapped, the search paths, the C compiler's folders, the GPU's device nodes.
// Never a list of one machine's folders, and never a home folder, /root, /proc or the host's /dev.

#include <filesystem>
#include <utility>
#include <vector>

#include "sandbox/policy.h"

namespace d2k::sandbox {

struct HostFacts {
  std::vector<std::filesystem::path> interpreter;  // prefixes, sys.path, site and sysconfig paths
  std::vector<std::filesystem::path> loader;       // the folders /etc/ld.so.cache lists
  std::vector<std::filesystem::path> mapped;       // executable files mapped into this process
  std::vector<std::filesystem::path> search;       // $PATH, $LD_LIBRARY_PATH, $CUDA_HOME entries
  // What the host's C compiler needs to build a module, as it reports it: its own folders and
  // its header search path (Triton builds its launcher with it on first use).
  std::vector<std::filesystem::path> compiler;
  std::vector<std::filesystem::path> gpu_devices;  // /dev/nvidia*
  // The links at the top of the host's tree with what they resolve to (/lib64 -> /usr/lib64):
  // the loader of every program is named through one.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> root_links;
};

// The system paths (outermost folders only) and devices of a minimal root; `tmp` is left empty.
MinimalRoot minimal_root_from(const HostFacts& facts);

// This host's facts, read once per process (the interpreter is asked through a short probe).
const HostFacts& host_facts();

}  // namespace d2k::sandbox
