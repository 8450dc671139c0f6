#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/kernel_table.h"
#include "cli/result_table.h"
#include "store/store.h"

namespace d2k::cli {
namespace {

struct ResultsFlags {
  std::string task;
  std::string impl;
  int limit = 20;
  int64_t id = 0;
  int64_t kernels_id = 0;
  bool passed_only = false;
  bool json = false;
};

}  // namespace

std::function<int()> define_results(CLI::App& app, const GlobalOptions& global) {
  auto flags = std::make_shared<ResultsFlags>();
  app.add_option("--task", flags->task, "only this task");
  app.add_option("--impl", flags->impl, "only this implementation kind");
  app.add_option("--limit", flags->limit, "at most this many rows (0: all)");
  app.add_option("--id", flags->id, "show this evaluation in full");
  app.add_option("--kernels", flags->kernels_id,
                 "show what this evaluation's audit calls ran on the device");
  app.add_flag("--passed", flags->passed_only, "only evaluations that passed");
  app.add_flag("--json", flags->json, "JSON output");
  return [flags, &global] {
    const store::Store store = store::Store::open(store_path(global));
    if (flags->kernels_id != 0) {
      const auto result = store.evaluations().load(flags->kernels_id);
      if (!result) throw std::runtime_error(fmt::format("no evaluation {}", flags->kernels_id));
      if (!flags->json) {
        fmt::print("{}", render_kernels(*result));
        return kExitPassed;
      }
      nlohmann::json out = nlohmann::json::array();
      for (const auto& w : result->workloads) {
        out.push_back({{"workload", w.workload}, {"findings", w.findings}});
        out.back()["audit"] = w.audit ? nlohmann::json(*w.audit) : nlohmann::json(nullptr);
      }
      fmt::print("{}\n", out.dump(2));
      return kExitPassed;
    }
    if (flags->id != 0) {
      const auto result = store.evaluations().load(flags->id);
      if (!result) throw std::runtime_error(fmt::format("no evaluation {}", flags->id));
      fmt::print("{}", flags->json ? nlohmann::json(*result).dump(2) + "\n" : render_evaluation(*result));
      return kExitPassed;
    }
    store::Query query;
    if (!flags->task.empty()) query.task = flags->task;
    if (!flags->impl.empty()) query.impl_kind = flags->impl;
    query.passed_only = flags->passed_only;
    query.limit = flags->limit;
    const auto rows = store.evaluations().list(query);
    if (flags->json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& row : rows) {
        out.push_back({{"id", row.id}, {"created_at", row.created_at}, {"task", row.task_id},
                       {"impl_kind", row.impl_kind}, {"impl_path", row.impl_path},
                       {"impl_hash", row.impl_hash}, {"device_name", row.device_name},
                       {"passed", row.passed}, {"workloads_passed", row.workloads_passed},
                       {"workloads_total", row.workloads_total}});
      }
      fmt::print("{}\n", out.dump(2));
      return kExitPassed;
    }
    fmt::print("{:>5}  {:<20}  {:<28} {:<9} {:<7} {:>9}  {}\n", "id", "created", "task", "impl",
               "result", "workloads", "device");
    for (const auto& row : rows) {
      fmt::print("{:>5}  {:<20}  {:<28} {:<9} {:<7} {:>9}  {}\n", row.id, row.created_at,
                 row.task_id, row.impl_kind, row.passed ? "passed" : "failed",
                 fmt::format("{}/{}", row.workloads_passed, row.workloads_total), row.device_name);
    }
    return kExitPassed;
  };
}

}  // namespace d2k::cli
