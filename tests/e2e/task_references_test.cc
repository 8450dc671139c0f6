// The CPU checks of the tasks' inputs and references: every script in tests/task_references runs
// with the interpreter d2k embeds (Debian's, with PyTorch for the CPU) and must exit 0.

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "subprocess.h"

namespace d2k::e2e {
namespace {

namespace fs = std::filesystem;

TEST(TaskReferencesTest, EveryTaskCheckPasses) {
  const fs::path folder = fs::path(D2K_SOURCE_DIR) / "tests" / "task_references";
  std::vector<fs::path> scripts;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().extension() == ".py") scripts.push_back(entry.path());
  }
  ASSERT_FALSE(scripts.empty()) << "no checks in " << folder;
  const TempDir scratch;
  for (const fs::path& script : scripts) {
    SCOPED_TRACE(script.string());
    const RunResult result = run_process(D2K_PYTHON_EXECUTABLE, {script.string()}, scratch.path());
    ASSERT_TRUE(result.exited) << result.err;
    EXPECT_EQ(result.status, 0) << "stdout:\n" << result.out << "\nstderr:\n" << result.err;
  }
}

}  // namespace
}  // namespace d2k::e2e
