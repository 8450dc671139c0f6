#pragma once
// The report's tables and figures as rows of formatted cells, shared by the Markdown, CSV and
// HTML renderers so that all three show the same numbers with the same rounding.

#include <optional>
#include <string>
#include <vector>

#include "report/report.h"

namespace d2k::report {

struct Cell {
  std::string text;              // as a reader sees it: "2.31", "12.5 %", "1.20 ms"
  std::optional<double> number;  // the unrounded value, for CSV; absent for labels and blanks
};

struct TextTable {
  std::string id;       // stable name: table1, table2_design, ..., figure4, task:<task id>
  std::string title;
  std::string caption;  // how the numbers are computed
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<Missing> missing;
};

// Every table of the report in reading order: Tables 1, 2 (design, impl), 4, 5, 6, Figures 3
// and 4 (their data), then one latency table per task.
std::vector<TextTable> report_tables(const Report& report);

// Seconds in the unit that reads best: "850 ns", "12.3 µs", "1.20 ms", "2.50 s".
std::string format_seconds(double seconds);

}  // namespace d2k::report
