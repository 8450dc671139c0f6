#include "report/report.h"

namespace d2k::report {
namespace {

// Absent values are JSON null, so a reader tells "not computed" from zero.
template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json optional_levels(const std::optional<std::array<double, 3>>& levels) {
  if (!levels) return nullptr;
  return {{"l1", (*levels)[0]}, {"l2", (*levels)[1]}, {"l3", (*levels)[2]}};
}

nlohmann::json missing_json(const std::vector<Missing>& missing) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : missing) out.push_back({{"what", m.what}, {"command", m.command}});
  return out;
}

nlohmann::json optional_list(const std::vector<std::optional<double>>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& v : values) out.push_back(optional_json(v));
  return out;
}

nlohmann::json score_row_json(const ScoreRow& row) {
  return {{"implementation", row.implementation}, {"config", row.config},
          {"correct", row.correct},               {"tasks", row.tasks},
          {"sperf", optional_json(row.sperf)},    {"tasks_without_run", row.tasks_without_run}};
}

}  // namespace

void to_json(nlohmann::json& j, const Report& report) {
  nlohmann::json table1 = {{"rows", nlohmann::json::array()},
                           {"overall", nlohmann::json::array()},
                           {"missing", missing_json(report.table1.missing)}};
  for (const auto& row : report.table1.rows) table1["rows"].push_back(score_row_json(row));
  for (const auto& row : report.table1.overall) table1["overall"].push_back(score_row_json(row));

  nlohmann::json table2 = {{"design", nlohmann::json::array()},
                           {"impl", nlohmann::json::array()},
                           {"design_missing", missing_json(report.table2.design_missing)},
                           {"missing", missing_json(report.table2.missing)}};
  for (const auto& row : report.table2.design) {
    table2["design"].push_back({{"model", row.model},
                                {"levels", optional_levels(row.levels)},
                                {"js_design", optional_json(row.js_design)},
                                {"tasks_without_assessment", row.tasks_without_assessment}});
  }
  for (const auto& row : report.table2.impl) {
    table2["impl"].push_back({{"model", row.model},
                              {"config", row.config},
                              {"levels", optional_levels(row.levels)},
                              {"js_impl", optional_json(row.js_impl)},
                              {"sperf", optional_json(row.sperf)},
                              {"tasks_without_assessment", row.tasks_without_assessment}});
  }

  nlohmann::json table4 = {{"rows", nlohmann::json::array()},
                           {"not_fully_correct", report.table4.not_fully_correct},
                           {"missing", missing_json(report.table4.missing)}};
  for (const auto& row : report.table4.rows) {
    table4["rows"].push_back({{"implementation", row.implementation}, {"config", row.config},
                              {"correct", row.correct}, {"speedup", row.speedup}});
  }

  nlohmann::json table5 = {{"thresholds", report.table5.thresholds},
                           {"rows", nlohmann::json::array()},
                           {"missing", missing_json(report.table5.missing)}};
  for (const auto& row : report.table5.rows) {
    table5["rows"].push_back(
        {{"implementation", row.implementation}, {"config", row.config}, {"fast", row.fast}});
  }

  nlohmann::json table6 = {{"rows", nlohmann::json::array()},
                           {"missing", missing_json(report.table6.missing)}};
  for (const auto& row : report.table6.rows) {
    table6["rows"].push_back({{"model", row.model},
                              {"config", row.config},
                              {"runs", row.runs},
                              {"runs_without_usage", row.runs_without_usage},
                              {"prompt_tokens", row.prompt_tokens},
                              {"completion_tokens", row.completion_tokens},
                              {"cost_usd", row.cost_usd}});
  }

  nlohmann::json figure3 = {{"bars", nlohmann::json::array()},
                            {"missing", missing_json(report.figure3.missing)}};
  for (const auto& bar : report.figure3.bars) {
    figure3["bars"].push_back(
        {{"model", bar.model}, {"config", bar.config}, {"percent", bar.percent}});
  }

  nlohmann::json figure4 = {{"series", nlohmann::json::array()},
                            {"missing", missing_json(report.figure4.missing)}};
  for (const auto& series : report.figure4.series) {
    figure4["series"].push_back({{"model", series.model},
                                 {"config", series.config},
                                 {"sperf_by_turn", series.sperf_by_turn}});
  }

  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& view : report.task_views) {
    nlohmann::json implementations = nlohmann::json::array();
    for (const auto& timings : view.implementations) {
      implementations.push_back({{"label", timings.label},
                                 {"evaluation_id", timings.evaluation_id},
                                 {"passed", timings.passed},
                                 {"latency_s", optional_list(timings.latency_s)}});
    }
    tasks.push_back({{"task", view.task_id},
                     {"device", view.device},
                     {"workloads", view.workloads},
                     {"t_sol_s", optional_list(view.t_sol_s)},
                     {"implementations", implementations},
                     {"missing", missing_json(view.missing)}});
  }

  j = {{"tasks", report.tasks},   {"table1", table1},   {"table2", table2},
       {"table4", table4},        {"table5", table5},   {"table6", table6},
       {"figure3", figure3},      {"figure4", figure4}, {"task_views", tasks},
       {"missing", missing_json(report.missing)}};
}

}  // namespace d2k::report
