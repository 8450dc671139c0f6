#include "report/csv_renderer.h"

#include <stdexcept>

#include <fmt/format.h>

#include "report/text_table.h"

namespace d2k::report {
namespace {

std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string cell_text(const Cell& cell) {
  if (cell.number) return fmt::format("{}", *cell.number);  // shortest exact form
  return cell.text == "—" ? "" : cell.text;
}

std::string rows(const TextTable& table) {
  std::vector<std::string> header;
  for (const auto& column : table.columns) header.push_back(field(column));
  std::string out = fmt::format("{}\n", fmt::join(header, ","));
  for (const auto& row : table.rows) {
    std::vector<std::string> cells;
    for (const auto& cell : row) cells.push_back(field(cell_text(cell)));
    out += fmt::format("{}\n", fmt::join(cells, ","));
  }
  return out;
}

}  // namespace

std::string CsvRenderer::render(const Report& report, const RenderOptions& options) const {
  const std::vector<TextTable> tables = report_tables(report);
  if (!options.table.empty()) {
    std::vector<std::string> ids;
    for (const auto& table : tables) {
      if (table.id == options.table) return rows(table);
      ids.push_back(table.id);
    }
    throw std::invalid_argument(fmt::format("no table '{}' in this report (tables: {})",
                                            options.table, fmt::join(ids, ", ")));
  }
  std::string out;
  for (const auto& m : report.missing) {
    out += fmt::format("# missing: {}; run: {}\n", m.what, m.command);
  }
  for (const auto& table : tables) {
    if (!out.empty()) out += "\n";
    out += fmt::format("# {}\n", table.id);
    for (const auto& m : table.missing) {
      out += fmt::format("# missing: {}; run: {}\n", m.what, m.command);
    }
    out += rows(table);
  }
  return out;
}

}  // namespace d2k::report
