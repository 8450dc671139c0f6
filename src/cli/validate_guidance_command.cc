#include <fmt/format.h>

#include "cli/commands.h"
#include "schema/schema.h"
#include "task/task_loader.h"

namespace d2k::cli {

std::function<int()> define_validate_guidance(CLI::App& app, const GlobalOptions& global) {
  auto names = std::make_shared<std::vector<std::string>>();
  app.add_option("task", *names, "task ids or folders (default: every task)");
  return [names, &global] {
    const schema::Schema schema = schema::Schema::load(schema::design_schema_path());
    std::vector<std::filesystem::path> dirs;
    if (names->empty()) dirs = task::find_task_dirs(tasks_root(global));
    for (const std::string& name : *names) dirs.push_back(resolve_task(global, name).dir);
    int failed = 0;
    for (const auto& dir : dirs) {
      const std::string id = dir.filename().string();
      const auto file = dir / "guidance.json";
      if (!std::filesystem::exists(file)) {
        fmt::print("{}: no guidance.json (it is optional)\n", id);
        continue;
      }
      try {
        const auto violations = schema.validate_file(file);
        if (!violations.empty()) ++failed;
        fmt::print("{}: {}\n", id,
                   violations.empty() ? "valid"
                                      : fmt::format("{} violation{}", violations.size(),
                                                    violations.size() == 1 ? "" : "s"));
        for (const auto& violation : violations) fmt::print("  {}\n", violation.to_string());
      } catch (const std::runtime_error& error) {  // unreadable, or not JSON
        ++failed;
        fmt::print("{}: {}\n", id, error.what());
      }
    }
    return failed == 0 ? kExitPassed : kExitFailed;
  };
}

}  // namespace d2k::cli
