#include "report/markdown_renderer.h"

#include <fmt/format.h>

#include "report/text_table.h"

namespace d2k::report {
namespace {

// A pipe inside a cell would end it.
std::string escape_cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

void append_missing(std::string& out, const std::vector<Missing>& missing) {
  if (missing.empty()) return;
  out += "Missing:\n\n";
  for (const auto& m : missing) out += fmt::format("- {}. Produced by: `{}`\n", m.what, m.command);
  out += "\n";
}

void append_table(std::string& out, const TextTable& table) {
  out += fmt::format("## {}\n\n{}\n\n", table.title, table.caption);
  if (table.rows.empty()) {
    out += "No rows.\n\n";
  } else {
    std::vector<std::string> header;
    for (const auto& column : table.columns) header.push_back(escape_cell(column));
    out += fmt::format("| {} |\n|{}\n", fmt::join(header, " | "),
                       fmt::format("{}", fmt::join(std::vector<std::string>(header.size(), "---|"),
                                                   "")));
    for (const auto& row : table.rows) {
      std::vector<std::string> cells;
      for (const auto& cell : row) cells.push_back(escape_cell(cell.text));
      out += fmt::format("| {} |\n", fmt::join(cells, " | "));
    }
    out += "\n";
  }
  append_missing(out, table.missing);
}

}  // namespace

std::string MarkdownRenderer::render(const Report& report, const RenderOptions&) const {
  std::string out = "# d2k report\n\n";
  out += report.tasks.empty()
             ? "No task has a passed baseline evaluation, so nothing can be scored.\n\n"
             : fmt::format("Task set T ({} tasks): {}.\n\n", report.tasks.size(),
                           fmt::join(report.tasks, ", "));
  append_missing(out, report.missing);
  for (const auto& table : report_tables(report)) append_table(out, table);
  return out;
}

}  // namespace d2k::report
