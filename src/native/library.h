#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <stdexcept>

#include <d2k/native_abi.h>

namespace d2k::native {

// The shared object cannot be loaded, lacks a required entry point, or speaks another ABI.
class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An entry point returned a nonzero status; what() holds the candidate's message.
class CallError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A native candidate loaded into this process: dlopen(RTLD_NOW | RTLD_LOCAL), so every symbol
// resolves at load time and none leaks into the harness's namespace.
class Library {
 public:
  // Throws LoadError.
  explicit Library(const std::filesystem::path& path);
  ~Library();
  Library(const Library&) = delete;  // owns the dlopen handle
  Library& operator=(const Library&) = delete;

  bool has_setup() const { return setup_ != nullptr; }
  // d2k_native_setup's workspace size, 0 when the library has none. Throws CallError.
  uint64_t setup(const d2k_native_call& call);
  // One d2k_native_run. Throws CallError.
  void run(const d2k_native_call& call);

 private:
  using VersionFn = int32_t (*)();
  using RunFn = int32_t (*)(const d2k_native_call*, char*, size_t);
  using SetupFn = int32_t (*)(const d2k_native_call*, uint64_t*, char*, size_t);

  [[noreturn]] void fail(const char* entry, int32_t status);

  void* handle_ = nullptr;
  RunFn run_ = nullptr;
  SetupFn setup_ = nullptr;
  std::array<char, 4096> error_{};  // the candidate's message buffer
};

}  // namespace d2k::native
