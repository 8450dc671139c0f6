#include "util/python_executable.h"

#include <cstdlib>

namespace d2k::util {

std::filesystem::path python_executable() {
  const char* from_env = std::getenv("D2K_PYTHON");
  return from_env != nullptr && *from_env != '\0' ? from_env : D2K_PYTHON_EXECUTABLE;
}

}  // namespace d2k::util
