#include "sandbox/system_view.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sandbox/ld_cache.h"
#include "util/program_path.h"
#include "util/python_executable.h"

namespace d2k::sandbox {
namespace {

namespace fs = std::filesystem;

bool is_within(const fs::path& path, const fs::path& folder) {
  const fs::path relative = path.lexically_relative(folder);
  return !relative.empty() && *relative.begin() != "..";
}

// Never bound from the derived facts: the host's secrets and its live process and device trees.
bool allowed(const fs::path& path) {
  if (!path.is_absolute() || path == path.root_path()) return false;
  for (const char* denied : {"/root", "/home", "/proc", "/dev", "/run", "/etc/shadow", "/etc/gshadow"}) {
    if (is_within(path, denied)) return false;
  }
  return true;
}

std::vector<fs::path> split(const char* value) {
  std::vector<fs::path> paths;
  if (value == nullptr) return paths;
  std::stringstream in(value);
  for (std::string part; std::getline(in, part, ':');) {
    if (!part.empty()) paths.emplace_back(part);
  }
  return paths;
}

std::string output_of(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string text;
  char buffer[4096];
  while (const size_t n = fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, n);
  pclose(pipe);
  return text;
}

// The compilers a JIT would pick ($CC first, as Triton does), each asked once however many
// names it goes by, and for each the folders it reports: "install:" and "programs:" of
// -print-search-dirs, and the #include <...> search list.
std::vector<fs::path> compiler_folders() {
  std::vector<fs::path> folders;
  std::vector<std::string> names{"gcc", "cc", "clang"};
  if (const char* cc = std::getenv("CC"); cc != nullptr && *cc != '\0')
    names.insert(names.begin(), cc);
  std::set<fs::path> asked;
  for (const auto& name : names) {
    const std::optional<fs::path> found = name.find('/') != std::string::npos
                                              ? std::optional<fs::path>(name)
                                              : util::find_on_path(name);
    if (!found) continue;
    const fs::path& program = *found;
    std::error_code error;
    const fs::path real = fs::canonical(program, error);
    if (error || !asked.insert(real).second) continue;
    folders.push_back(real.parent_path());
    const std::string quoted = "'" + program.string() + "'";
    std::istringstream dirs(output_of(quoted + " -print-search-dirs 2>/dev/null"));
    for (std::string line; std::getline(dirs, line);) {
      for (const std::string key : {"install: ", "programs: ="}) {
        if (line.rfind(key, 0) != 0) continue;
        for (const auto& path : split(line.c_str() + key.size())) {
          if (fs::is_directory(path, error)) folders.push_back(fs::canonical(path, error));
        }
      }
    }
    std::istringstream verbose(output_of(quoted + " -xc -E -v /dev/null 2>&1 >/dev/null"));
    bool in_list = false;
    for (std::string line; std::getline(verbose, line);) {
      if (line.rfind("#include <...> search starts here:", 0) == 0) in_list = true;
      else if (line.rfind("End of search list.", 0) == 0) in_list = false;
      else if (in_list && !line.empty() && line.front() == ' ') {
        const fs::path include = line.substr(line.find_first_not_of(' '));
        if (fs::is_directory(include, error)) folders.push_back(fs::canonical(include, error));
      }
    }
  }
  return folders;
}

// The interpreter's prefixes and import paths, as the interpreter itself reports them.
// Links in those folders count too (Debian's sitecustomize.py lives in /etc/python3.X).
constexpr const char* kProbe = R"(
import json, os, site, sys, sysconfig
paths = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, sys.executable]
paths += [p for p in sys.path if p]
paths += site.getsitepackages() + list(sysconfig.get_paths().values())
for folder in list(paths):
    try:
        names = os.listdir(folder)
    except OSError:
        continue
    for name in names:
        if os.path.islink(os.path.join(folder, name)):
            paths.append(os.path.dirname(os.path.realpath(os.path.join(folder, name))))
print(json.dumps(paths))
)";

std::vector<fs::path> probe_interpreter() {
  const std::string text =
      output_of("'" + util::python_executable().string() + "' -c '" + kProbe + "' 2>/dev/null");
  try {
    return nlohmann::json::parse(text).get<std::vector<fs::path>>();
  } catch (const nlohmann::json::exception&) {
    return {};
  }
}

std::vector<fs::path> mapped_executables() {
  std::ifstream maps("/proc/self/maps");
  std::vector<fs::path> files;
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::string range, permissions, offset, device, inode, path;
    fields >> range >> permissions >> offset >> device >> inode >> path;
    // Executable mappings only: libraries and programs, never a database's shared memory file.
    if (permissions.size() > 2 && permissions[2] == 'x' && !path.empty() && path.front() == '/') {
      files.emplace_back(path);
    }
  }
  return files;
}

HostFacts read_facts() {
  HostFacts facts;
  facts.interpreter = probe_interpreter();
  std::ifstream cache("/etc/ld.so.cache", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(cache)), std::istreambuf_iterator<char>());
  facts.loader = ld_cache_folders(bytes);
  facts.mapped = mapped_executables();
  for (const char* variable : {"PATH", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH"}) {
    for (const auto& path : split(std::getenv(variable))) facts.search.push_back(path);
  }
  facts.compiler = compiler_folders();
  std::error_code error;
  for (auto it = fs::directory_iterator("/", error); !error && it != fs::end(it); it.increment(error)) {
    std::error_code unresolved;
    const fs::path real = fs::canonical(it->path(), unresolved);
    if (it->is_symlink(unresolved) && !unresolved) facts.root_links.emplace_back(it->path(), real);
  }
  error.clear();
  for (auto it = fs::directory_iterator("/dev", error); !error && it != fs::end(it); it.increment(error)) {
    if (it->path().filename().string().rfind("nvidia", 0) == 0) facts.gpu_devices.push_back(it->path());
  }
  return facts;
}

}  // namespace

MinimalRoot minimal_root_from(const HostFacts& facts) {
  std::vector<fs::path> wanted;
  const auto want = [&](const fs::path& path) {
    const fs::path normal = path.lexically_normal();
    if (allowed(normal)) wanted.push_back(normal);
  };
  for (const auto& path : facts.interpreter) want(path);
  for (const auto& path : facts.loader) want(path);
  for (const auto& path : facts.mapped) want(path.parent_path());
  for (const auto& path : facts.search) want(path);
  for (const auto& path : facts.compiler) want(path);
  // The loader's own configuration; the links through which Debian names compilers and CUDA;
  // the user names programs look their ids up in; the PCI topology the GPU driver reads.
  for (const char* path : {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                           "/etc/alternatives", "/etc/passwd", "/etc/group", "/sys"}) {
    want(path);
  }
  std::sort(wanted.begin(), wanted.end());
  MinimalRoot root;
  for (const auto& path : wanted) {
    if (root.system.empty() || !is_within(path, root.system.back())) root.system.push_back(path);
  }
  // A top-level link stays when what it names is in the tree anyway.
  for (const auto& [link, real] : facts.root_links) {
    const bool inside = std::any_of(root.system.begin(), root.system.end(),
                                    [&](const fs::path& path) { return is_within(real, path); });
    if (inside && allowed(link)) root.system.push_back(link);
  }
  root.devices = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
  for (const auto& device : facts.gpu_devices) root.devices.push_back(device);
  return root;
}

const HostFacts& host_facts() {
  static const HostFacts facts = read_facts();
  return facts;
}

}  // namespace d2k::sandbox
