#pragma once

#include <string>
#include <vector>

namespace d2k::native {

// A compiler and the flags d2k gives it to build a candidate's shared object.
struct Toolchain {
  std::string compiler;                     // a path, or a name found on PATH
  std::vector<std::string> default_flags;   // a task's evaluation.native flags replace these
  std::vector<std::string> required_flags;  // always given: a loadable shared object, ABI headers

  // compiler, flags (the task's, else the defaults), the required flags, source, -o output.
  std::vector<std::string> command(const std::vector<std::string>& flags, const std::string& source,
                                   const std::string& output) const;
};

// nvcc for .cu: $D2K_NVCC, else the nvcc d2k was configured with, else `nvcc`; Hopper sm_90a.
Toolchain nvcc_toolchain();
// The host compiler for .cpp: $CXX, else `c++`.
Toolchain cxx_toolchain();

}  // namespace d2k::native
