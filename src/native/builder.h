#pragma once
// Compiles a native candidate into a shared object, once: objects are cached by a hash of
// everything that decides their bytes.

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "native/toolchain.h"

namespace d2k::native {

// The machine cannot build at all (no compiler, or one that does not say its version): a set-up
// problem, not the candidate's.
class BuildError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Everything the cache key covers.
struct BuildKey {
  std::string compiler;
  std::string compiler_version;         // what `compiler --version` printed
  std::vector<std::string> flags;       // effective and required, in command order
  std::string target;                   // host architecture, and the GPU for CUDA builds
  std::string source;                   // the source file's bytes

  // 16 hex digits of an XXH3 digest over every field, each length-prefixed, and the ABI version.
  std::string hash() const;
};

struct BuildRequest {
  std::filesystem::path source;
  Toolchain toolchain;
  std::optional<std::vector<std::string>> flags;  // the task's; nullopt: the toolchain's defaults
  std::string target;
  double timeout_seconds = 300.0;
};

struct BuildOutcome {
  bool ok = false;      // false: the compiler failed or ran out of time
  bool cached = false;  // the shared object came from the cache; nothing was compiled
  double seconds = 0.0;
  std::string hash;
  std::string command;            // shell-quoted
  std::filesystem::path library;  // the cached shared object, when ok
  std::string diagnostics;        // when not ok: what happened, then the compiler's output
};

class Builder {
 public:
  // Compiler output kept in a failure's diagnostics; enough for the first errors, which are the
  // ones that matter.
  static constexpr size_t kOutputLimit = 16 * 1024;

  explicit Builder(std::filesystem::path cache_dir) : cache_dir_(std::move(cache_dir)) {}

  // The cached object for `request`, or a fresh compile stored in the cache on success. Throws
  // BuildError when the compiler cannot be run or does not report a version.
  BuildOutcome build(const BuildRequest& request) const;

 private:
  std::filesystem::path cache_dir_;
};

// $D2K_CACHE/native, else ~/.cache/d2k/native.
std::filesystem::path default_cache_dir();

}  // namespace d2k::native
