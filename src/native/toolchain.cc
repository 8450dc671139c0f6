#include "native/toolchain.h"

#include <cstdlib>
#include <filesystem>

namespace d2k::native {
namespace {

std::string from_environment(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

// d2k/native_abi.h and the dlpack/dlpack.h it includes. A system folder is left out: naming it
// with -I would move it ahead of the compiler's own headers.
std::vector<std::string> include_flags() {
  std::vector<std::string> flags{
      "-I" + (std::filesystem::path(D2K_SOURCE_DIR) / "include").string()};
  const std::string dlpack = D2K_DLPACK_INCLUDE_DIR;
  if (dlpack != "/usr/include" && dlpack != "/usr/local/include") flags.push_back("-I" + dlpack);
  return flags;
}

}  // namespace

std::vector<std::string> Toolchain::command(const std::vector<std::string>& flags,
                                            const std::string& source,
                                            const std::string& output) const {
  std::vector<std::string> argv{compiler};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), required_flags.begin(), required_flags.end());
  argv.push_back(source);
  argv.push_back("-o");
  argv.push_back(output);
  return argv;
}

Toolchain nvcc_toolchain() {
  Toolchain toolchain;
  std::string configured = D2K_NVCC_EXECUTABLE;
  if (configured.empty() || !std::filesystem::exists(configured)) configured = "nvcc";
  toolchain.compiler = from_environment("D2K_NVCC", configured);
  toolchain.default_flags = {"-gencode=arch=compute_90a,code=sm_90a", "-O3"};
  toolchain.required_flags = {"-shared", "-Xcompiler", "-fPIC"};
  for (auto& flag : include_flags()) toolchain.required_flags.push_back(std::move(flag));
  return toolchain;
}

Toolchain cxx_toolchain() {
  Toolchain toolchain;
  toolchain.compiler = from_environment("CXX", "c++");
  toolchain.default_flags = {"-std=c++17", "-O3"};
  toolchain.required_flags = {"-shared", "-fPIC"};
  for (auto& flag : include_flags()) toolchain.required_flags.push_back(std::move(flag));
  return toolchain;
}

}  // namespace d2k::native
