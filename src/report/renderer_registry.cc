#include "report/renderer_registry.h"

#include <stdexcept>

#include <fmt/format.h>

#include "report/csv_renderer.h"
#include "report/html_renderer.h"
#include "report/json_renderer.h"
#include "report/markdown_renderer.h"
#include "report/results_renderer.h"

namespace d2k::report {

const RendererRegistry& RendererRegistry::instance() {
  static const RendererRegistry registry;
  return registry;
}

RendererRegistry::RendererRegistry() {
  entries_.push_back({"md", "Markdown tables, one section per table and figure",
                      std::make_unique<MarkdownRenderer>()});
  entries_.push_back({"csv", "one CSV per table, each after a '# <table id>' line (--table: one)",
                      std::make_unique<CsvRenderer>()});
  entries_.push_back({"json", "the report's data model", std::make_unique<JsonRenderer>()});
  entries_.push_back({"html", "one self-contained page with SVG charts",
                      std::make_unique<HtmlRenderer>()});
  entries_.push_back({"results",
                      "docs/results.md: latencies, speedups and %SOL of the reference, baseline, "
                      "expert and anchors, with the environment and each row's command",
                      std::make_unique<ResultsRenderer>()});
}

std::vector<std::string> RendererRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& entry : entries_) names.push_back(entry.name);
  return names;
}

std::string RendererRegistry::description(const std::string& name) const {
  return find(name).description;
}

const Renderer& RendererRegistry::get(const std::string& name) const {
  return *find(name).renderer;
}

const RendererRegistry::Entry& RendererRegistry::find(const std::string& name) const {
  for (const auto& entry : entries_) {
    if (entry.name == name) return entry;
  }
  throw std::invalid_argument(
      fmt::format("unknown report format '{}' (known: {})", name, fmt::join(names(), ", ")));
}

}  // namespace d2k::report
