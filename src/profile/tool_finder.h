#pragma once
// Where a profiler's executable is; a small interface so that tests need no CUDA toolkit.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace d2k::profile {

class ToolFinder {
 public:
  virtual ~ToolFinder() = default;
  // The executable `name`, or nullopt when there is none.
  virtual std::optional<std::filesystem::path> find(const std::string& name) const = 0;
  // Where find() looked, for the error that says it found nothing.
  virtual std::vector<std::filesystem::path> places() const = 0;
};

// The folders of $PATH, then the CUDA toolkit's bin folder ($CUDA_HOME, else /usr/local/cuda),
// where the toolkit installs ncu and compute-sanitizer.
class SystemToolFinder : public ToolFinder {
 public:
  std::optional<std::filesystem::path> find(const std::string& name) const override;
  std::vector<std::filesystem::path> places() const override;
};

}  // namespace d2k::profile
