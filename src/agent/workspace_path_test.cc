#include "agent/workspace_path.h"

#include <gtest/gtest.h>

#include "agent/test_folder_test_util.h"

namespace d2k::agent {
namespace {

namespace fs = std::filesystem;

class WorkspacePathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(workspace_);
    write_text(workspace_ / "a" / "file.txt", "x");
    write_text(folder_.path() / "outside.txt", "secret");
  }
  TestFolder folder_;
  fs::path workspace_ = folder_.path() / "ws";
};

TEST_F(WorkspacePathTest, AcceptsPathsInside) {
  EXPECT_EQ(resolve_in_workspace(workspace_, "a/file.txt"), workspace_ / "a" / "file.txt");
  EXPECT_EQ(resolve_in_workspace(workspace_, "a/../new.txt"), workspace_ / "new.txt");
  EXPECT_EQ(resolve_in_workspace(workspace_, (workspace_ / "a").string()), workspace_ / "a");
}

TEST_F(WorkspacePathTest, RefusesPathsThatLeave) {
  EXPECT_THROW(resolve_in_workspace(workspace_, "../outside.txt"), std::runtime_error);
  EXPECT_THROW(resolve_in_workspace(workspace_, "a/../../outside.txt"), std::runtime_error);
  EXPECT_THROW(resolve_in_workspace(workspace_, (folder_.path() / "outside.txt").string()), std::runtime_error);
  EXPECT_THROW(resolve_in_workspace(workspace_, "/etc/passwd"), std::runtime_error);
  EXPECT_THROW(resolve_in_workspace(workspace_, ""), std::runtime_error);
}

TEST_F(WorkspacePathTest, FollowsSymlinks) {
  fs::create_symlink(folder_.path() / "outside.txt", workspace_ / "link.txt");
  fs::create_directory_symlink(folder_.path(), workspace_ / "up");
  fs::create_symlink(workspace_ / "a" / "file.txt", workspace_ / "inner.txt");
  EXPECT_THROW(resolve_in_workspace(workspace_, "link.txt"), std::runtime_error);
  EXPECT_THROW(resolve_in_workspace(workspace_, "up/outside.txt"), std::runtime_error);
  EXPECT_THROW(resolve_in_workspace(workspace_, "up/new.txt"), std::runtime_error);
  EXPECT_EQ(resolve_in_workspace(workspace_, "inner.txt"), workspace_ / "a" / "file.txt");
}

TEST_F(WorkspacePathTest, AWorkspaceWhoseNameIsAPrefixIsNotInside) {
  write_text(folder_.path() / "ws2" / "f", "x");
  EXPECT_THROW(resolve_in_workspace(workspace_, "../ws2/f"), std::runtime_error);
}

}  // namespace
}  // namespace d2k::agent
