#include "task/task_error.h"

#include <gtest/gtest.h>

namespace d2k::task {
namespace {

TEST(TaskErrorTest, ReadsLikeACompilerDiagnostic) {
  const TaskError error("tasks/x/config.json", 12, 5, "workloads[1].label: expected a string");
  EXPECT_STREQ(error.what(), "tasks/x/config.json:12:5: workloads[1].label: expected a string");
  EXPECT_EQ(error.file(), "tasks/x/config.json");
  EXPECT_EQ(error.line(), 12);
  EXPECT_EQ(error.column(), 5);
  EXPECT_EQ(error.message(), "workloads[1].label: expected a string");
}

TEST(TaskErrorTest, LeavesOutUnknownPositions) {
  EXPECT_STREQ(TaskError("tasks/x/reference.py", "required file is missing").what(),
               "tasks/x/reference.py: required file is missing");
  EXPECT_STREQ(TaskError("a.yaml", 3, 0, "bad").what(), "a.yaml:3: bad");
}

}  // namespace
}  // namespace d2k::task
