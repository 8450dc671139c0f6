#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "report/renderer_registry.h"
#include "report/report_builder.h"
#include "store/store.h"

namespace d2k::cli {
namespace {

struct ReportFlags {
  report::ReportFilter filter;
  std::string format = "md";
  std::string output;
  std::string table;
  bool list_formats = false;
};

std::string formats_help() {
  const auto& registry = report::RendererRegistry::instance();
  std::string help;
  for (const auto& name : registry.names()) {
    help += fmt::format("{:<8}{}\n", name, registry.description(name));
  }
  return help;
}

void write_output(const std::string& path, const std::string& text) {
  const std::filesystem::path file(path);
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", path));
}

}  // namespace

std::function<int()> define_report(CLI::App& app, const GlobalOptions& global) {
  auto flags = std::make_shared<ReportFlags>();
  app.add_option("--task", flags->filter.tasks, "only these tasks (repeatable)");
  app.add_option("--models", flags->filter.models, "only agent runs of these models");
  app.add_option("--run", flags->filter.runs, "only these agent runs (ids)");
  app.add_option("--device", flags->filter.device,
                 "device of the fixed rows (default: that of the newest passed baseline)");
  app.add_option("--format", flags->format, "md, csv, json, html or results (see --list-formats)")
      ->check(CLI::IsMember(report::RendererRegistry::instance().names()));
  app.add_option("--output", flags->output, "write to this file instead of stdout");
  app.add_option("--table", flags->table, "csv: only this table (table1, ..., task:<id>)");
  app.add_flag("--list-formats", flags->list_formats, "list the formats and exit");
  return [flags, &global] {
    if (flags->list_formats) {
      fmt::print("{}", formats_help());
      return kExitPassed;
    }
    if (!flags->table.empty() && flags->format != "csv") {
      fmt::print(stderr, "d2k report: --table needs --format csv\n");
      return kExitUsage;
    }
    const std::filesystem::path path = store_path(global);
    if (!std::filesystem::exists(path)) {
      throw std::runtime_error(fmt::format(
          "no store at {} (d2k eval creates one; --store or $D2K_STORE names another)",
          path.string()));
    }
    // Reading never changes the store: a committed one stays byte-identical.
    const store::Store store = store::Store::open_read_only(path);
    const report::Report built = report::build_report(store, store.agent_runs(), flags->filter);
    const std::string text = report::RendererRegistry::instance().get(flags->format).render(
        built, {.table = flags->table});
    if (flags->output.empty()) {
      fmt::print("{}", text);
    } else {
      write_output(flags->output, text);
    }
    return kExitPassed;
  };
}

}  // namespace d2k::cli
