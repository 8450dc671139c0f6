// Zero false positives: every legitimate implementation in the repository (the tasks' baselines
// and experts, Python or native, and the fixture candidates that must pass) obeys its task's
// rules.

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "task/task_loader.h"
#include "validity/native_analyzer.h"
#include "validity/python_analyzer.h"
#include "util/expect_header_test_util.h"

namespace d2k::validity {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = D2K_SOURCE_DIR;

bool expected_to_pass(const fs::path& file) {
  return util::read_expect_header(file).verdict == "passed";
}

// (task folder, implementation) for every implementation that must pass.
std::vector<std::pair<fs::path, fs::path>> legitimate_implementations() {
  std::vector<std::pair<fs::path, fs::path>> found;
  for (const fs::path root : {kSource / "tasks", kSource / "tests" / "fixtures" / "tasks"}) {
    for (const auto& task : fs::directory_iterator(root)) {
      for (const char* kind : {"baseline", "expert"}) {
        const fs::path file = task.path() / kind / "solution.py";
        if (fs::exists(file)) found.emplace_back(task.path(), file);
      }
    }
  }
  for (const auto& folder : fs::directory_iterator(kSource / "tests" / "fixtures" / "solutions")) {
    const fs::path task = kSource / "tests" / "fixtures" / "tasks" / folder.path().filename();
    if (!fs::exists(task)) continue;
    for (const auto& file : fs::directory_iterator(folder)) {
      if (file.path().extension() == ".py" && expected_to_pass(file)) {
        found.emplace_back(task, file.path());
      }
    }
  }
  return found;
}

TEST(RepositorySolutions, EveryLegitimateImplementationPassesTheStaticGate) {
  const auto implementations = legitimate_implementations();
  ASSERT_GE(implementations.size(), 6u);
  for (const auto& [task_dir, file] : implementations) {
    SCOPED_TRACE(file.string());
    const task::Task task = task::load_task(task_dir);
    for (const auto& finding : PythonAnalyzer().analyze(file, task.rules)) {
      ADD_FAILURE() << finding.file << ":" << finding.line << ": " << finding.message << " ["
                    << finding.rule << "]";
    }
  }
}

// The native baselines and experts: the include scan of their sources (what the built object
// links is checked when d2k builds it on a machine with nvcc, tests/e2e/native_test.cc).
TEST(RepositorySolutions, EveryNativeImplementationPassesTheSourceScan) {
  int checked = 0;
  for (const auto& task : fs::directory_iterator(kSource / "tasks")) {
    for (const char* kind : {"baseline", "expert"}) {
      const fs::path file = task.path() / kind / "solution.cu";
      if (!fs::exists(file)) continue;
      SCOPED_TRACE(file.string());
      ++checked;
      const task::Task loaded = task::load_task(task.path());
      for (const auto& finding : analyze_native(file, "", loaded.rules)) {
        ADD_FAILURE() << finding.file << ":" << finding.line << ": " << finding.message << " ["
                      << finding.rule << "]";
      }
    }
  }
  EXPECT_GE(checked, 2);  // Muon's CUDA baseline and the sampling expert
}

}  // namespace
}  // namespace d2k::validity
