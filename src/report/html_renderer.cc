#include "report/html_renderer.h"

#include <cctype>

#include <fmt/format.h>

#include "report/svg_chart.h"
#include "report/text_table.h"

namespace d2k::report {
namespace {

// No script, no fetch: everything the page shows is inline. A browser that is asked to load
// anything else refuses and logs a violation, which the headless check treats as an error.
constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

constexpr const char* kStyle = R"css(
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222;
       padding: 0 1rem; line-height: 1.4; }
h1 { font-size: 1.6rem; }
h2 { font-size: 1.2rem; margin-top: 2.2rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
.caption { color: #555; font-size: 0.9rem; max-width: 900px; }
.missing { background: #fff6e0; border-left: 4px solid #e69f00; padding: 0.4rem 0.8rem;
           font-size: 0.9rem; }
.missing code { background: #f4ecd8; padding: 0 0.2rem; }
nav ul { columns: 2; font-size: 0.9rem; }
svg { display: block; margin: 0.6rem 0; }
)css";

std::string missing_block(const std::vector<Missing>& missing) {
  if (missing.empty()) return "";
  std::string out = "<div class=\"missing\"><strong>Missing</strong><ul>";
  for (const auto& m : missing) {
    out += fmt::format("<li>{}. Produced by: <code>{}</code></li>", escape_xml(m.what),
                       escape_xml(m.command));
  }
  return out + "</ul></div>";
}

std::string html_table(const TextTable& table) {
  if (table.rows.empty()) return "<p>No rows.</p>";
  std::string out = "<table><thead><tr>";
  for (const auto& column : table.columns) out += "<th>" + escape_xml(column) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (const auto& cell : row) out += "<td>" + escape_xml(cell.text) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table>";
}

std::string figure3_chart(const Figure3& figure) {
  std::vector<BarGroup> groups;
  for (const auto& bar : figure.bars) {
    if (groups.empty() || groups.back().label != bar.model) groups.push_back({bar.model, {}});
    groups.back().bars.push_back({bar.config, bar.percent});
  }
  return bar_chart(groups, 100.0, "Expert = 100 %", "expert-relative performance (%)");
}

std::string figure4_chart(const Figure4& figure) {
  std::vector<LineSeries> series;
  for (const auto& s : figure.series) {
    series.push_back({fmt::format("{} ({})", s.model, s.config), s.sperf_by_turn});
  }
  return line_chart(series, "turn", "S'_perf");
}

std::string task_chart(const TaskView& view) {
  std::vector<DotSeries> series;
  for (const auto& timings : view.implementations) {
    series.push_back({timings.label, timings.latency_s});
  }
  return log_dot_chart(view.workloads, view.t_sol_s, "T_SOL", series, "latency per call");
}

std::string chart_for(const TextTable& table, const Report& report) {
  if (table.id == "figure3") return figure3_chart(report.figure3);
  if (table.id == "figure4") return figure4_chart(report.figure4);
  for (const auto& view : report.task_views) {
    if (table.id == "task:" + view.task_id) return task_chart(view);
  }
  return "";
}

std::string anchor(const std::string& id) {
  std::string out;
  for (const char c : id) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

}  // namespace

std::string HtmlRenderer::render(const Report& report, const RenderOptions&) const {
  const std::vector<TextTable> tables = report_tables(report);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>d2k report</title><style>{}</style></head><body>\n<h1>d2k report</h1>",
      kContentSecurityPolicy, kStyle);
  out += report.tasks.empty()
             ? "<p>No task has a passed baseline evaluation, so nothing can be scored.</p>"
             : fmt::format("<p>Task set T ({} tasks): {}.</p>", report.tasks.size(),
                           escape_xml(fmt::format("{}", fmt::join(report.tasks, ", "))));
  out += missing_block(report.missing);
  out += "<nav><ul>";
  for (const auto& table : tables) {
    out += fmt::format("<li><a href=\"#{}\">{}</a></li>", anchor(table.id),
                       escape_xml(table.title));
  }
  out += "</ul></nav>\n";
  for (const auto& table : tables) {
    out += fmt::format("<section id=\"{}\"><h2>{}</h2><p class=\"caption\">{}</p>",
                       anchor(table.id), escape_xml(table.title), escape_xml(table.caption));
    out += chart_for(table, report);
    out += html_table(table);
    out += missing_block(table.missing);
    out += "</section>\n";
  }
  return out + "</body></html>\n";
}

}  // namespace d2k::report
