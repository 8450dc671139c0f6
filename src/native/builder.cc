#include "native/builder.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include <d2k/native_abi.h>

#include "native/command.h"
#include "util/hash.h"

namespace d2k::native {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Bump to make every cached object stale (a change in how d2k builds).
constexpr std::string_view kKeyFormat = "d2k-native-build 1";
constexpr double kVersionTimeoutSeconds = 60.0;
constexpr size_t kVersionOutputLimit = 4096;

void add_field(util::Hasher& hasher, std::string_view field) {
  const uint64_t size = field.size();
  hasher.update(&size, sizeof size);
  hasher.update(field.data(), field.size());
}

std::string read_source(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) throw BuildError("cannot read " + file.string());
  return bytes.str();
}

std::string compiler_version(const std::string& compiler, double timeout_seconds) {
  CommandResult result;
  try {
    result = run_command({compiler, "--version"}, fs::current_path(),
                         std::min(timeout_seconds, kVersionTimeoutSeconds), kVersionOutputLimit);
  } catch (const std::runtime_error& error) {
    throw BuildError(error.what());
  }
  if (!result.succeeded()) {
    throw BuildError(fmt::format("`{} --version` {}:\n{}", compiler,
                                 result.describe(kVersionTimeoutSeconds), result.output));
  }
  return result.output;
}

}  // namespace

std::string BuildKey::hash() const {
  util::Hasher hasher;
  add_field(hasher, kKeyFormat);
  add_field(hasher, std::to_string(D2K_NATIVE_ABI_VERSION));
  add_field(hasher, compiler);
  add_field(hasher, compiler_version);
  add_field(hasher, std::to_string(flags.size()));
  for (const auto& flag : flags) add_field(hasher, flag);
  add_field(hasher, target);
  add_field(hasher, source);
  return util::to_hex(hasher.digest());
}

BuildOutcome Builder::build(const BuildRequest& request) const {
  const auto started = Clock::now();
  const Toolchain& toolchain = request.toolchain;
  BuildKey key;
  key.compiler = toolchain.compiler;
  key.compiler_version = compiler_version(toolchain.compiler, request.timeout_seconds);
  key.flags = request.flags.value_or(toolchain.default_flags);
  key.flags.insert(key.flags.end(), toolchain.required_flags.begin(),
                   toolchain.required_flags.end());
  key.target = request.target;
  key.source = read_source(request.source);

  BuildOutcome outcome;
  outcome.hash = key.hash();
  outcome.library = cache_dir_ / (outcome.hash + ".so");
  const std::vector<std::string> flags = request.flags.value_or(toolchain.default_flags);
  const fs::path source = fs::absolute(request.source);
  outcome.command =
      shell_quote(toolchain.command(flags, source.string(), outcome.library.string()));
  const auto finish = [&](bool ok) {
    outcome.ok = ok;
    outcome.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return outcome;
  };
  if (fs::exists(outcome.library)) {
    outcome.cached = true;
    return finish(true);
  }

  // Compile next to the final name and rename: a reader never sees a half-written object, and
  // two builds of the same key both end with a whole one.
  fs::create_directories(cache_dir_);
  const fs::path partial =
      cache_dir_ / fmt::format(".{}.{}.{}.so", outcome.hash, getpid(),
                               Clock::now().time_since_epoch().count());
  CommandResult result;
  try {
    result = run_command(toolchain.command(flags, source.string(), partial.string()),
                         source.parent_path(), request.timeout_seconds, kOutputLimit);
  } catch (const std::runtime_error& error) {
    throw BuildError(error.what());
  }
  if (!result.succeeded() || !fs::exists(partial)) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    outcome.library.clear();
    const std::string what = result.succeeded() ? "wrote no shared object"
                                                : result.describe(request.timeout_seconds);
    outcome.diagnostics = fmt::format("compiling {} failed: {} {}:\n{}",
                                      source.filename().string(), toolchain.compiler, what,
                                      result.output);
    return finish(false);
  }
  fs::rename(partial, outcome.library);
  return finish(true);
}

fs::path default_cache_dir() {
  if (const char* root = std::getenv("D2K_CACHE"); root != nullptr && *root != '\0') {
    return fs::path(root) / "native";
  }
  const char* home = std::getenv("HOME");
  return fs::path(home != nullptr && *home != '\0' ? home : "/tmp") / ".cache" / "d2k" / "native";
}

}  // namespace d2k::native
