#pragma once
// The measured state of the suite on one device, as docs/results.md shows it: per task and
// workload the latency of the reference, baseline, expert and each anchor, with their samples,
// cache policy, speedups, fraction of the speed-of-light bound and the command that measures
// each again, and the environment and ceilings they were measured with. Built from a store by
// build_results_page (results_page_builder.h); the "results" renderer formats it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "record/device_ceilings.h"
#include "record/result.h"

namespace d2k::report {

// One implementation on one workload.
struct MeasuredRow {
  std::string implementation;  // "reference", "baseline", "expert", "anchor <name>"
  int64_t evaluation_id = 0;
  std::string outcome;         // "passed", else the verdict and reason code
  std::optional<double> mean_s;
  double stdev_s = 0.0;
  int samples = 0;
  int64_t calls_per_sample = 0;
  std::string method;          // timing method
  std::string cache_policy;    // "cold" or "hot"
  bool from_cache = false;     // the latency was reused from an earlier evaluation
  std::optional<double> speedup_vs_reference;
  std::optional<double> speedup_vs_baseline;
  std::optional<double> sol_fraction;  // T_SOL / latency
  std::string command;         // what measures this row again
};

struct MeasuredWorkload {
  std::string workload;
  std::optional<double> t_sol_s;
  std::string bound;           // which ceiling bounds T_SOL, and where its rate came from
  std::vector<MeasuredRow> rows;
};

// The expert against one anchor on one workload.
struct AnchorComparison {
  std::string workload;
  std::string anchor;
  double anchor_s = 0.0;
  double expert_s = 0.0;
  double expert_speedup = 0.0;  // anchor_s / expert_s
};

struct MeasuredTask {
  std::string task_id;
  std::vector<MeasuredWorkload> workloads;
  std::vector<AnchorComparison> anchors;
  std::vector<std::string> missing;  // implementations the store has no evaluation of
};

// A latency that beat its speed-of-light bound: the bound or its work model is wrong.
struct OverSpeedOfLight {
  std::string task_id;
  std::string workload;
  std::string implementation;
  double fraction = 0.0;
};

struct ResultsPage {
  std::string store_name;  // the store's file name
  std::string device;
  std::optional<record::Environment> environment;  // of the newest evaluation shown
  std::optional<record::DeviceCeilings> ceilings;
  std::vector<MeasuredTask> tasks;
  std::vector<OverSpeedOfLight> over_sol;
};

}  // namespace d2k::report
