#include "util/temp_dir.h"

#include <gtest/gtest.h>

#include <fstream>

namespace d2k::util {
namespace {

namespace fs = std::filesystem;

TEST(TempDirTest, MakesAFreshFolderAndRemovesItWithItsContents) {
  fs::path kept;
  {
    TempDir dir("d2k-temp-dir-test-");
    kept = dir.path();
    EXPECT_TRUE(fs::is_directory(kept));
    EXPECT_EQ(kept.filename().string().rfind("d2k-temp-dir-test-", 0), 0u) << kept;
    fs::create_directories(kept / "a" / "b");
    std::ofstream(kept / "a" / "b" / "file") << "x";
    TempDir other("d2k-temp-dir-test-");
    EXPECT_NE(other.path(), kept);
  }
  EXPECT_FALSE(fs::exists(kept));
}

TEST(TempDirTest, MakeUniqueDirCreatesTheParentAndKeepsTheFolder) {
  TempDir root;
  const fs::path made = make_unique_dir(root.path() / "missing" / "parent", "run-");
  EXPECT_TRUE(fs::is_directory(made));
  EXPECT_EQ(made.parent_path(), root.path() / "missing" / "parent");
  EXPECT_NE(make_unique_dir(made.parent_path(), "run-"), made);
}

TEST(TempDirTest, AParentThatCannotHoldFoldersIsAnError) {
  TempDir root;
  std::ofstream(root.path() / "file") << "x";
  EXPECT_THROW(make_unique_dir(root.path() / "file", "run-"), std::exception);
}

TEST(TempDirTest, ALockedFolderRemovesTheUnclaimedFoldersOfItsPrefixFirst) {
  TempDir root;
  const fs::path stale = root.path() / "run-stale";
  fs::create_directories(stale / "tensors");
  std::ofstream(stale / ".lock") << "";  // left by a killed process: nobody holds it
  const fs::path unlocked = root.path() / "run-without-lock";
  fs::create_directories(unlocked);
  const fs::path foreign = root.path() / "other-stale";
  fs::create_directories(foreign);
  std::ofstream(foreign / ".lock") << "";

  TempDir live("run-", root.path(), TempDir::Claim::locked);
  EXPECT_TRUE(fs::exists(live.path() / ".lock"));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(unlocked)) << "a folder without a lock is not ours to judge";
  EXPECT_TRUE(fs::exists(foreign)) << "another prefix is left alone";

  TempDir second("run-", root.path(), TempDir::Claim::locked);
  EXPECT_TRUE(fs::exists(live.path())) << "a folder whose lock is held stays";
}

}  // namespace
}  // namespace d2k::util
