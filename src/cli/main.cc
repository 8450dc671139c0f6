#include <cstdio>
#include <exception>
#include <memory>

#include "cli/command.h"

int main(int argc, char** argv) {
  using namespace d2k::cli;
  CLI::App app{"d2k: a benchmark for GPU kernels written by people and agents"};
  app.require_subcommand(1);
  GlobalOptions global;
  app.add_option("--tasks", global.tasks_root, "folder of task folders (default: $D2K_TASKS or the source tree's tasks/)");
  app.add_option("--store", global.store_path, "SQLite store (default: $D2K_STORE or ./d2k-store.sqlite)");

  std::function<int()> selected;
  std::vector<std::function<int()>> runners;
  for (const auto& command : commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.summary);
    sub->fallthrough();  // global options (--store, --tasks) may follow the subcommand
    auto runner = std::make_shared<std::function<int()>>(command.define(*sub, global));
    sub->callback([runner, &selected] { selected = *runner; });
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // CLI11 numbers each kind of usage error (105, 108, ...); d2k's are all one status. --help
    // and --version are no error.
    return app.exit(error) == 0 ? 0 : kExitUsage;
  }
  try {
    return selected();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "d2k: %s\n", error.what());
    return kExitUsage;
  }
}
