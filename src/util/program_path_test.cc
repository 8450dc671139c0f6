#include "util/program_path.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "util/temp_dir.h"

namespace d2k::util {
namespace {

namespace fs = std::filesystem;

TEST(FindOnPathTest, FindsTheFirstExecutableFileOfThatName) {
  TempDir first;
  TempDir second;
  std::ofstream(first.path() / "tool") << "not executable";
  std::ofstream(second.path() / "tool") << "#!/bin/sh\n";
  fs::permissions(second.path() / "tool", fs::perms::owner_all);
  fs::create_directories(first.path() / "folder");
  const char* before = std::getenv("PATH");
  const std::string saved = before != nullptr ? before : "";
  setenv("PATH", (first.path().string() + ":" + second.path().string()).c_str(), 1);
  EXPECT_EQ(find_on_path("tool"), second.path() / "tool");
  EXPECT_EQ(find_on_path("folder"), std::nullopt) << "a folder is not a program";
  EXPECT_EQ(find_on_path("missing"), std::nullopt);
  setenv("PATH", saved.c_str(), 1);
}

}  // namespace
}  // namespace d2k::util
