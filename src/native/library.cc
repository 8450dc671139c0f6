#include "native/library.h"

#include <dlfcn.h>

#include <cstring>
#include <string>

#include <fmt/format.h>

namespace d2k::native {
namespace {

std::string last_dl_error() {
  const char* error = dlerror();
  return error != nullptr ? error : "unknown error";
}

}  // namespace

Library::Library(const std::filesystem::path& path) {
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) throw LoadError("cannot load the candidate: " + last_dl_error());
  try {
    auto version = reinterpret_cast<VersionFn>(dlsym(handle_, "d2k_native_abi_version"));
    if (version == nullptr) {
      throw LoadError(
          "the candidate does not export d2k_native_abi_version; include <d2k/native_abi.h> and "
          "define it to return D2K_NATIVE_ABI_VERSION");
    }
    const int32_t reported = version();
    if (reported != D2K_NATIVE_ABI_VERSION) {
      throw LoadError(fmt::format("the candidate was written for native ABI version {}; this d2k "
                                  "speaks version {}",
                                  reported, D2K_NATIVE_ABI_VERSION));
    }
    run_ = reinterpret_cast<RunFn>(dlsym(handle_, "d2k_native_run"));
    if (run_ == nullptr) {
      throw LoadError(
          "the candidate does not export d2k_native_run (with C linkage: include "
          "<d2k/native_abi.h> before defining it)");
    }
    setup_ = reinterpret_cast<SetupFn>(dlsym(handle_, "d2k_native_setup"));  // optional
  } catch (...) {
    dlclose(handle_);
    throw;
  }
}

Library::~Library() { dlclose(handle_); }

void Library::fail(const char* entry, int32_t status) {
  error_.back() = '\0';  // whatever the candidate wrote, read it as a bounded string
  const std::string message(error_.data(), strnlen(error_.data(), error_.size()));
  throw CallError(fmt::format("{} returned {}: {}", entry, status,
                              message.empty() ? "(no message)" : message));
}

uint64_t Library::setup(const d2k_native_call& call) {
  if (setup_ == nullptr) return 0;
  uint64_t workspace_bytes = 0;
  error_[0] = '\0';
  const int32_t status = setup_(&call, &workspace_bytes, error_.data(), error_.size());
  if (status != 0) fail("d2k_native_setup", status);
  return workspace_bytes;
}

void Library::run(const d2k_native_call& call) {
  error_[0] = '\0';
  const int32_t status = run_(&call, error_.data(), error_.size());
  if (status != 0) fail("d2k_native_run", status);
}

}  // namespace d2k::native
