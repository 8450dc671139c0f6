#pragma once
// The report's data model: every table and figure of the paper that d2k can fill from its store
// (Tables 1, 2, 4, 5, 6, Figures 3 and 4) and a per-task view, as plain numbers. build_report
// fills it once; each renderer only formats it. A part that cannot be filled keeps its rows
// empty and says, in `missing`, what is absent and which command produces it.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/results_page.h"

namespace d2k::report {

// Something a table or figure needs but the store lacks, and the command that produces it.
struct Missing {
  std::string what;
  std::string command;
};

// Table 1: correctness and S_perf of one implementation under one configuration. The fixed
// implementations (PyTorch reference, baseline, expert) have an empty configuration.
struct ScoreRow {
  std::string implementation;  // a model name, or "PyTorch reference", "Baseline", "Expert"
  std::string config;          // none | L1 | L1+L2 | L1+L2+L3; empty for fixed implementations
  int correct = 0;
  int tasks = 0;
  std::optional<double> sperf;  // absent when a task could not be scored
  std::vector<std::string> tasks_without_run;  // counted as failed (0.5)
};

struct Table1 {
  std::vector<ScoreRow> rows;
  std::vector<ScoreRow> overall;  // per configuration: pooled counts, GM of the model scores
  std::vector<Missing> missing;
};

// Table 2: the judge's scores next to S_perf.
struct DesignRow {
  std::string model;
  std::optional<std::array<double, 3>> levels;  // L1, L2, L3 means over tasks
  std::optional<double> js_design;
  std::vector<std::string> tasks_without_assessment;
};

struct ImplRow {
  std::string model;  // "Average" for the mean over the configuration's models
  std::string config;
  std::optional<std::array<double, 3>> levels;  // incorrect tasks count 0 at every level
  std::optional<double> js_impl;
  std::optional<double> sperf;
  std::vector<std::string> tasks_without_assessment;  // correct final submissions not judged
};

struct Table2 {
  std::vector<DesignRow> design;
  std::vector<ImplRow> impl;
  std::vector<Missing> design_missing;
  std::vector<Missing> missing;  // of the implementation rows
};

// Table 4: geometric mean speedup of implementations that pass every task.
struct SpeedupRow {
  std::string implementation;
  std::string config;
  int correct = 0;
  double speedup = 0.0;
};

struct Table4 {
  std::vector<SpeedupRow> rows;
  std::vector<std::string> not_fully_correct;  // "model (config)": left out, as in the paper
  std::vector<Missing> missing;
};

// Table 5: fast_p at the paper's thresholds, as fractions of all tasks.
struct FastRow {
  std::string implementation;  // a model, or "Overall" (every model's tasks pooled)
  std::string config;
  std::array<double, 3> fast{};  // p = 1, 1.5, 2
};

struct Table5 {
  std::array<double, 3> thresholds{};
  std::vector<FastRow> rows;
  std::vector<Missing> missing;
};

// Table 6: what the agent runs used, summed over their tasks.
struct UsageRow {
  std::string model;
  std::string config;  // "total" for the sum over the model's configurations
  int runs = 0;
  int runs_without_usage = 0;  // runs whose tokens or cost were not recorded
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  double cost_usd = 0.0;
};

struct Table6 {
  std::vector<UsageRow> rows;
  std::vector<Missing> missing;
};

// Figure 3: performance relative to the expert's, in percent (100 = on par).
struct ExpertRelativeBar {
  std::string model;
  std::string config;
  double percent = 0.0;
};

struct Figure3 {
  std::vector<ExpertRelativeBar> bars;
  std::vector<Missing> missing;
};

// Figure 4: S'_perf after each turn 0..last turn.
struct TrajectorySeries {
  std::string model;
  std::string config;
  std::vector<double> sperf_by_turn;
};

struct Figure4 {
  std::vector<TrajectorySeries> series;
  std::vector<Missing> missing;
};

// One implementation's latencies on a task's workloads, in the task's workload order.
struct ImplementationTimings {
  std::string label;  // "reference", "baseline", "expert", "<model> (<config>)", "solution"
  int64_t evaluation_id = 0;
  bool passed = false;
  std::vector<std::optional<double>> latency_s;  // absent: no valid measurement
};

struct TaskView {
  std::string task_id;
  std::string device;
  std::vector<std::string> workloads;
  std::vector<std::optional<double>> t_sol_s;  // per workload; absent: no SOL recorded
  std::vector<ImplementationTimings> implementations;
  std::vector<Missing> missing;
};

struct Report {
  std::vector<std::string> tasks;  // the task set T every score is over
  Table1 table1;
  Table2 table2;
  Table4 table4;
  Table5 table5;
  Table6 table6;
  Figure3 figure3;
  Figure4 figure4;
  std::vector<TaskView> task_views;
  std::vector<Missing> missing;  // what the whole report lacks (no tasks, no baselines)
  ResultsPage results;  // the measured state of the suite (docs/results.md)
};

void to_json(nlohmann::json& j, const Report& report);

}  // namespace d2k::report
