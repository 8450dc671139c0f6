// The repository's anchors (tasks/<task>/anchors/<name>.py): each GPU task has torch.compile of
// its reference and a library path, every anchor keeps the task's solution contract, loads,
// and passes the static check it is evaluated under.

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "eval/evaluator.h"
#include "task/task_loader.h"
#include "util/temp_dir.h"
#include "validity/python_analyzer.h"

namespace d2k::eval {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = D2K_SOURCE_DIR;

// "def run(a, b,\n        c=5):" -> "a, b, c=5" (a signature over several lines, a return
// annotation allowed); empty when the file defines no run.
std::string run_parameters(const fs::path& file) {
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::regex def(R"((^|\n)def run\(([^)]*)\)(\s*->[^:]*)?:)");
  std::smatch match;
  if (!std::regex_search(text, match, def)) return "";
  return std::regex_replace(std::string(match[2]), std::regex(R"(\s+)"), " ");
}

std::vector<task::Task> tasks_with_anchors() {
  std::vector<task::Task> found;
  for (const fs::path root : {kSource / "tasks", kSource / "tests" / "fixtures" / "tasks"}) {
    for (const auto& entry : fs::directory_iterator(root)) {
      if (!fs::is_directory(entry.path() / "anchors")) continue;
      found.push_back(task::load_task(entry.path()));
    }
  }
  return found;
}

TEST(Anchors, EveryGpuTaskHasTorchCompileAndALibraryPath) {
  // Tasks whose notes record that no library path for the operator exists on the device: Muon's
  // products are plain GEMMs that torch.compile already calls; no MoE permute or tree-verify
  // operator ships with the device's PyTorch.
  const std::vector<std::string> compile_only{"muon_orthogonalization", "moe_permute_unpermute",
                                              "eagle_tree_verify"};
  int gpu_tasks = 0;
  for (const fs::path& dir : task::find_task_dirs(kSource / "tasks")) {
    const task::Task task = task::load_task(dir);
    if (task.evaluation.device != task::Device::cuda) continue;
    SCOPED_TRACE(task.id);
    ++gpu_tasks;
    const std::vector<std::string> names = task.anchor_names();
    EXPECT_NE(std::find(names.begin(), names.end(), "torch_compile"), names.end());
    const bool only_compile =
        std::find(compile_only.begin(), compile_only.end(), task.id) != compile_only.end();
    if (!only_compile) EXPECT_GE(names.size(), 2u);
  }
  EXPECT_GE(gpu_tasks, 5);
}

TEST(Anchors, KeepTheSolutionContractAndPassTheirStaticCheck) {
  int checked = 0;
  for (const task::Task& task : tasks_with_anchors()) {
    const std::string contract = run_parameters(task.dir / "solution.py");
    ASSERT_FALSE(contract.empty()) << task.dir;
    for (const std::string& name : task.anchor_names()) {
      const fs::path file = task.anchor_file(name);
      SCOPED_TRACE(file.string());
      ++checked;
      EXPECT_EQ(run_parameters(file), contract);
      for (const auto& finding : validity::PythonAnalyzer().analyze(file, anchor_rules())) {
        ADD_FAILURE() << finding.file << ":" << finding.line << ": " << finding.message << " ["
                      << finding.rule << "]";
      }
    }
  }
  EXPECT_GE(checked, 9);
}

// Imported as the worker imports an anchor: its folder and the task folder on sys.path. The
// torch.compile anchors compile on their first call, so they load with any torch. One
// interpreter imports them all (PyTorch's import dominates), forgetting the modules each task's
// anchors imported from its folder (reference, get_inputs) before the next task's.
constexpr const char* kLoadAnchors = R"py(
import importlib.util, sys
failed = 0
for line in sys.stdin:
    task_dir, anchor_dir, file = line.rstrip("\n").split("\t")
    before = set(sys.modules)
    sys.path[:0] = [anchor_dir, task_dir]
    try:
        spec = importlib.util.spec_from_file_location("anchor", file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert callable(module.run), "no run()"
    except BaseException as error:
        failed += 1
        print(f"{file}: {type(error).__name__}: {error}")
    del sys.path[:2]
    for name in set(sys.modules) - before - {"torch", "numpy"}:
        if (getattr(sys.modules[name], "__file__", None) or "").startswith(task_dir):
            del sys.modules[name]
sys.exit(1 if failed else 0)
)py";

TEST(Anchors, Load) {
  const util::TempDir dir;
  std::ofstream(dir.path() / "load.py") << kLoadAnchors;
  std::ofstream list(dir.path() / "anchors.tsv");
  int anchors = 0;
  for (const task::Task& task : tasks_with_anchors()) {
    for (const std::string& name : task.anchor_names()) {
      const fs::path file = task.anchor_file(name);
      list << task.dir.string() << "\t" << file.parent_path().string() << "\t" << file.string()
           << "\n";
      ++anchors;
    }
  }
  list.close();
  const std::string command = std::string(D2K_PYTHON_EXECUTABLE) + " " +
                              (dir.path() / "load.py").string() + " < " +
                              (dir.path() / "anchors.tsv").string() + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  EXPECT_EQ(pclose(pipe), 0) << output;
  EXPECT_GE(anchors, 9);
}

TEST(Anchors, AnUnknownAnchorIsNamedWithTheKnownOnes) {
  const task::Task task = task::load_task(kSource / "tests" / "fixtures" / "tasks" / "cpu_scale_add");
  EXPECT_EQ(task.anchor_names(), (std::vector<std::string>{"another_operator", "compiles_first",
                                                           "reference_call", "torch_add"}));
  try {
    task.anchor_file("cublas");
    FAIL() << "an unknown anchor was found";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what())
                  .find("another_operator, compiles_first, reference_call, torch_add"),
              std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(task::load_task(kSource / "tests" / "fixtures" / "tasks" / "cpu_ema_state")
                  .anchor_names()
                  .empty());
}

}  // namespace
}  // namespace d2k::eval
