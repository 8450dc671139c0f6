#include "util/temp_dir.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace d2k::util {

std::filesystem::path make_unique_dir(const std::filesystem::path& parent, std::string_view prefix) {
  std::filesystem::create_directories(parent);
  std::string pattern = (parent / (std::string(prefix) + "XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a folder in " + parent.string() + ": " +
                             std::strerror(errno));
  }
  return std::filesystem::canonical(pattern);
}

namespace {

constexpr const char* kLock = ".lock";

// Removes the folders "<parent>/<prefix>*" whose lock nobody holds.
void remove_unclaimed(const std::filesystem::path& parent, std::string_view prefix) {
  std::error_code error;
  for (auto it = std::filesystem::directory_iterator(parent, error);
       !error && it != std::filesystem::end(it); it.increment(error)) {
    const auto& folder = it->path();
    if (!folder.filename().string().starts_with(prefix)) continue;
    const int lock = open((folder / kLock).c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (lock < 0) continue;  // not a claimed folder, or not ours to judge
    if (flock(lock, LOCK_EX | LOCK_NB) == 0) {
      std::error_code ignored;
      std::filesystem::remove_all(folder, ignored);
    }
    close(lock);
  }
}

}  // namespace

TempDir::TempDir(std::string_view prefix, const std::filesystem::path& parent, Claim claim) {
  if (claim == Claim::locked) {
    std::filesystem::create_directories(parent);
    remove_unclaimed(parent, prefix);
  }
  path_ = make_unique_dir(parent, prefix);
  if (claim == Claim::locked) {
    // Locked before the lock file gets its name, so that no other process sees it unlocked.
    const auto unnamed = path_ / ".lock.new";
    lock_ = open(unnamed.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock_ >= 0 && flock(lock_, LOCK_EX) == 0) std::filesystem::rename(unnamed, path_ / kLock);
  }
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  if (lock_ >= 0) close(lock_);
}

}  // namespace d2k::util
