#pragma once
// Fresh folders under a parent: one that is kept (a run's own folder) and one that removes
// itself with everything in it (scratch space, tests).

#include <filesystem>
#include <string_view>

namespace d2k::util {

// Creates a new folder "<parent>/<prefix>XXXXXX" with a unique suffix, creating `parent` when
// it is missing, and returns its canonical path. Throws std::runtime_error when it cannot.
std::filesystem::path make_unique_dir(const std::filesystem::path& parent, std::string_view prefix);

// A folder made by make_unique_dir (in the system's temporary folder by default), removed with
// its contents when the object goes.
class TempDir {
 public:
  // Whether the folder shows other processes that it is in use.
  enum class Claim {
    none,
    // A lock on "<folder>/.lock", held while the object lives and released by the kernel however
    // the process ends. Before making its folder, the object removes every folder of the same
    // prefix under the parent whose lock can be taken: those were left by a killed process.
    locked,
  };

  explicit TempDir(std::string_view prefix = "d2k-",
                   const std::filesystem::path& parent = std::filesystem::temp_directory_path(),
                   Claim claim = Claim::none);
  ~TempDir();
  TempDir(const TempDir&) = delete;  // owns the folder
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int lock_ = -1;
};

}  // namespace d2k::util
