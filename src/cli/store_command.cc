#include <fmt/format.h>

#include "cli/commands.h"
#include "store/store_import.h"

namespace d2k::cli {
namespace {

struct StoreFlags {
  std::vector<std::string> sources;
};

}  // namespace

std::function<int()> define_store(CLI::App& app, const GlobalOptions& global) {
  app.footer(
      "Merges stores: every evaluation, agent run and judge assessment of the sources that the "
      "store (--store) lacks is added once; a row stored with other contents is a conflict, "
      "reported and left as stored. Exit status: 0 when there were no conflicts, 1 when there "
      "were, 2 on an error.");
  app.require_subcommand(1);
  auto flags = std::make_shared<StoreFlags>();
  CLI::App* import = app.add_subcommand("import", "merge other stores into this one");
  import->fallthrough();
  import->add_option("sources", flags->sources, "stores to import (SQLite files)")
      ->required()
      ->check(CLI::ExistingFile);
  return [flags, &global] {
    store::ImportReport total;
    for (const std::string& source : flags->sources) {
      const store::ImportReport report = store::import_store(source, store_path(global));
      fmt::print("{}: {} evaluations added ({} present), {} agent runs added ({} present), {} "
                 "events added, {} judge assessments added ({} present)\n",
                 source, report.evaluations_added, report.evaluations_present, report.runs_added,
                 report.runs_present, report.events_added, report.assessments_added,
                 report.assessments_present);
      total += report;
    }
    for (const std::string& conflict : total.conflicts) fmt::print("conflict: {}\n", conflict);
    return total.conflicts.empty() ? kExitPassed : kExitFailed;
  };
}

}  // namespace d2k::cli
