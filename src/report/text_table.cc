#include "report/text_table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace d2k::report {
namespace {

Cell label(std::string text) { return {std::move(text), std::nullopt}; }

Cell blank() { return {"—", std::nullopt}; }

Cell fixed(double value, int decimals) { return {fmt::format("{:.{}f}", value, decimals), value}; }

Cell fixed(const std::optional<double>& value, int decimals) {
  return value ? fixed(*value, decimals) : blank();
}

Cell integer(int64_t value) { return {fmt::format("{}", value), static_cast<double>(value)}; }

Cell percent(double fraction) {
  return {fmt::format("{:.1f} %", 100.0 * fraction), 100.0 * fraction};
}

std::string join(const std::vector<std::string>& items) {
  return items.empty() ? "" : fmt::format("{}", fmt::join(items, ", "));
}

std::string config_text(const std::string& config) { return config.empty() ? "—" : config; }

TextTable table1(const Report& report) {
  TextTable t{.id = "table1",
              .title = "Table 1: correctness and S_perf",
              .caption = "Correct: tasks whose final submission passed every check and has a "
                         "latency on every workload. S_perf: geometric mean over the tasks of "
                         "each task's speedup over the baseline (Eq. 1 and 2); a failed task, or "
                         "one without a run, counts 0.5. Overall: summed counts and the "
                         "geometric mean of the model scores.",
              .columns = {"Implementation", "Configuration", "Correct", "Tasks", "S_perf",
                          "Without run"},
              .rows = {},
              .missing = report.table1.missing};
  const auto add = [&](const ScoreRow& row) {
    t.rows.push_back({label(row.implementation), label(config_text(row.config)),
                      integer(row.correct), integer(row.tasks), fixed(row.sperf, 2),
                      label(join(row.tasks_without_run))});
  };
  for (const auto& row : report.table1.rows) add(row);
  for (const auto& row : report.table1.overall) add(row);
  return t;
}

std::vector<Cell> level_cells(const std::optional<std::array<double, 3>>& levels) {
  if (!levels) return {blank(), blank(), blank()};
  return {fixed((*levels)[0], 2), fixed((*levels)[1], 2), fixed((*levels)[2], 2)};
}

TextTable table2_design(const Report& report) {
  TextTable t{.id = "table2_design",
              .title = "Table 2a: judge scores of independent designs",
              .caption = "Each level's arithmetic mean over the tasks of the judge's verified "
                         "scores for the model's `design` runs; JS_design is their mean (Eq. 4).",
              .columns = {"Model", "L1", "L2", "L3", "JS_design", "Not assessed"},
              .rows = {},
              .missing = report.table2.design_missing};
  for (const auto& row : report.table2.design) {
    std::vector<Cell> cells{label(row.model)};
    for (auto& cell : level_cells(row.levels)) cells.push_back(std::move(cell));
    cells.push_back(fixed(row.js_design, 1));
    cells.push_back(label(join(row.tasks_without_assessment)));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

TextTable table2_impl(const Report& report) {
  TextTable t{.id = "table2_impl",
              .title = "Table 2b: judge scores of final implementations, with S_perf",
              .caption = "Level means over the tasks; an incorrect final submission counts 0 at "
                         "every level. JS_impl is the mean of the levels (Eq. 4). Average: the "
                         "arithmetic mean over the models, and the geometric mean of S_perf.",
              .columns = {"Model", "Configuration", "L1", "L2", "L3", "JS_impl", "S_perf",
                          "Not assessed"},
              .rows = {},
              .missing = report.table2.missing};
  for (const auto& row : report.table2.impl) {
    std::vector<Cell> cells{label(row.model), label(config_text(row.config))};
    for (auto& cell : level_cells(row.levels)) cells.push_back(std::move(cell));
    cells.push_back(fixed(row.js_impl, 1));
    cells.push_back(fixed(row.sperf, 2));
    cells.push_back(label(join(row.tasks_without_assessment)));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

TextTable table4(const Report& report) {
  std::string caption =
      "Geometric mean over the tasks of each task's speedup over the baseline, for "
      "implementations that pass every task.";
  if (!report.table4.not_fully_correct.empty()) {
    caption += " Left out (not correct on every task): " +
               join(report.table4.not_fully_correct) + ".";
  }
  TextTable t{.id = "table4",
              .title = "Table 4: speedup of fully correct implementations",
              .caption = caption,
              .columns = {"Implementation", "Configuration", "Correct tasks", "Speedup"},
              .rows = {},
              .missing = report.table4.missing};
  for (const auto& row : report.table4.rows) {
    t.rows.push_back({label(row.implementation), label(config_text(row.config)),
                      integer(row.correct),
                      {fmt::format("{:.2f}x", row.speedup), row.speedup}});
  }
  return t;
}

TextTable table5(const Report& report) {
  TextTable t{.id = "table5",
              .title = "Table 5: fast_p, tasks correct and faster than p times the baseline",
              .caption = "Share of all tasks (failed ones included) that pass and whose speedup "
                         "over the baseline is strictly above p (Eq. 5). Overall pools every "
                         "model's tasks.",
              .columns = {"Implementation", "Configuration"},
              .rows = {},
              .missing = report.table5.missing};
  for (const double p : report.table5.thresholds) t.columns.push_back(fmt::format("fast_{}", p));
  for (const auto& row : report.table5.rows) {
    std::vector<Cell> cells{label(row.implementation), label(config_text(row.config))};
    for (const double fraction : row.fast) cells.push_back(percent(fraction));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

TextTable table6(const Report& report) {
  TextTable t{.id = "table6",
              .title = "Table 6: tokens and cost of the agent runs",
              .caption = "Sums over the runs the other tables read (the newest per task), as the "
                         "agent harness recorded them. The "
                         "store keeps prompt and completion tokens; it has no cache-read or "
                         "cache-write split.",
              .columns = {"Model", "Configuration", "Runs", "Prompt tokens", "Completion tokens",
                          "Cost (US$)", "Runs without usage"},
              .rows = {},
              .missing = report.table6.missing};
  for (const auto& row : report.table6.rows) {
    t.rows.push_back({label(row.model), label(row.config), integer(row.runs),
                      integer(row.prompt_tokens), integer(row.completion_tokens),
                      fixed(row.cost_usd, 2), integer(row.runs_without_usage)});
  }
  return t;
}

TextTable figure3(const Report& report) {
  TextTable t{.id = "figure3",
              .title = "Figure 3: performance relative to the expert under cumulative guidance",
              .caption = "Eq. 1 and 2 with the expert's latency in place of the baseline's, "
                         "times 100: 100 % is on par with the expert.",
              .columns = {"Model", "Configuration", "Expert-relative (%)"},
              .rows = {},
              .missing = report.figure3.missing};
  for (const auto& bar : report.figure3.bars) {
    t.rows.push_back({label(bar.model), label(bar.config),
                      {fmt::format("{:.0f}", bar.percent), bar.percent}});
  }
  return t;
}

// The turns Figure 4's table samples: about eight evenly spaced, always the first and last.
std::vector<size_t> sampled_turns(size_t count) {
  std::vector<size_t> turns;
  if (count == 0) return turns;
  const size_t step = std::max<size_t>(1, (count - 1 + 7) / 8);
  for (size_t turn = 0; turn < count - 1; turn += step) turns.push_back(turn);
  turns.push_back(count - 1);
  return turns;
}

TextTable figure4(const Report& report) {
  TextTable t{.id = "figure4",
              .title = "Figure 4: S'_perf over turns",
              .caption = "At each turn, every task contributes its best eligible score so far, "
                         "or 0.1 before its first eligible submission; geometric mean over the "
                         "tasks. The JSON output has every turn.",
              .columns = {"Model", "Configuration"},
              .rows = {},
              .missing = report.figure4.missing};
  size_t longest = 0;
  for (const auto& series : report.figure4.series) {
    longest = std::max(longest, series.sperf_by_turn.size());
  }
  const std::vector<size_t> turns = sampled_turns(longest);
  for (const size_t turn : turns) t.columns.push_back(fmt::format("turn {}", turn));
  for (const auto& series : report.figure4.series) {
    std::vector<Cell> cells{label(series.model), label(series.config)};
    for (const size_t turn : turns) {
      cells.push_back(turn < series.sperf_by_turn.size() ? fixed(series.sperf_by_turn[turn], 2)
                                                         : blank());
    }
    t.rows.push_back(std::move(cells));
  }
  return t;
}

TextTable task_table(const TaskView& view) {
  TextTable t{.id = "task:" + view.task_id,
              .title = fmt::format("Task {}: latency per workload on {}", view.task_id,
                                   view.device),
              .caption = "Mean latency per call of each implementation's newest evaluation; in "
                         "parentheses, T_SOL as a share of the latency (100 % = at the speed of "
                         "light). — means no valid measurement.",
              .columns = {"Workload", "T_SOL"},
              .rows = {},
              .missing = view.missing};
  for (const auto& timings : view.implementations) {
    t.columns.push_back(fmt::format("{} (#{}{})", timings.label, timings.evaluation_id,
                                    timings.passed ? "" : ", failed"));
  }
  for (size_t w = 0; w < view.workloads.size(); ++w) {
    const std::optional<double>& t_sol = view.t_sol_s[w];
    std::vector<Cell> cells{label(view.workloads[w]),
                            t_sol ? Cell{format_seconds(*t_sol), *t_sol} : label("no SOL")};
    for (const auto& timings : view.implementations) {
      const std::optional<double>& latency = timings.latency_s[w];
      if (!latency) {
        cells.push_back(blank());
      } else if (t_sol) {
        cells.push_back({fmt::format("{} ({:.0f} %)", format_seconds(*latency),
                                     100.0 * *t_sol / *latency),
                         *latency});
      } else {
        cells.push_back({format_seconds(*latency), *latency});
      }
    }
    t.rows.push_back(std::move(cells));
  }
  return t;
}

}  // namespace

std::string format_seconds(double seconds) {
  const double magnitude = std::fabs(seconds);
  if (magnitude >= 1.0) return fmt::format("{:.3g} s", seconds);
  if (magnitude >= 1e-3) return fmt::format("{:.3g} ms", seconds * 1e3);
  if (magnitude >= 1e-6) return fmt::format("{:.3g} µs", seconds * 1e6);
  return fmt::format("{:.3g} ns", seconds * 1e9);
}

std::vector<TextTable> report_tables(const Report& report) {
  std::vector<TextTable> tables{table1(report), table2_design(report), table2_impl(report),
                                table4(report), table5(report),        table6(report),
                                figure3(report), figure4(report)};
  for (const auto& view : report.task_views) tables.push_back(task_table(view));
  return tables;
}

}  // namespace d2k::report
