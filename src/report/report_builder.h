#pragma once
// Fills a Report from the store: picks the evaluations each table compares (baseline,
// reference, expert, the final submission of each agent run), turns them into the score
// layer's inputs, and records what is missing instead of inventing numbers.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "report/report.h"
#include "store/agent_store.h"
#include "store/store.h"

namespace d2k::report {

// What the report covers. Empty lists select everything in the store.
struct ReportFilter {
  std::vector<std::string> tasks;
  std::vector<std::string> models;
  std::vector<int64_t> runs;  // agent run ids; otherwise the newest run per model, config, task
  // The device whose reference, baseline and expert evaluations the fixed rows use; empty: the
  // device of the newest passed baseline evaluation of the selected tasks.
  std::string device;
};

// The guidance configurations in cumulative order (Figure 3's bars), then the design run.
inline constexpr std::array<const char*, 4> kGuidanceConfigs = {"none", "L1", "L1+L2",
                                                                "L1+L2+L3"};
inline constexpr const char* kDesignConfig = "design";

Report build_report(const store::Store& store, const store::AgentStore& agents,
                    const ReportFilter& filter);

}  // namespace d2k::report
