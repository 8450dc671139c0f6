#include "report/results_renderer.h"

#include <string>
#include <vector>

#include <fmt/format.h>

namespace d2k::report {
namespace {

std::string milliseconds(double seconds) { return fmt::format("{:.4g}", seconds * 1e3); }

std::string optional_ratio(const std::optional<double>& ratio) {
  return ratio ? fmt::format("{:.2f}x", *ratio) : "";
}

std::string percent_of_sol(const MeasuredRow& row) {
  if (!row.sol_fraction) return "";
  const double percent = *row.sol_fraction * 100.0;
  // Above 100 % the latency beat a bound no correct implementation can beat: the bound is wrong.
  return percent > 100.0 ? fmt::format("**{:.1f} % (above the bound)**", percent)
                         : fmt::format("{:.1f} %", percent);
}

void environment_section(const ResultsPage& page, std::string& out) {
  out += "## Environment\n\n";
  out += "| | |\n|---|---|\n";
  out += fmt::format("| Device | {} |\n", page.device);
  if (page.environment) {
    const record::Environment& env = *page.environment;
    out += fmt::format("| Driver | {} |\n| CUDA | {} |\n| PyTorch | {} |\n| Triton | {} |\n"
                       "| Python | {} |\n| d2k | {} |\n",
                       env.driver, env.cuda, env.torch, env.triton, env.python, env.d2k_version);
  }
  out += "\n";
  out += "Ceilings (`d2k doctor`), which the speed-of-light bounds divide by: the higher of the "
         "measured rate and the datasheet's.\n\n";
  if (!page.ceilings) {
    out += "None in the store: run `d2k doctor --store STORE` on the device.\n\n";
    return;
  }
  const record::DeviceCeilings& ceilings = *page.ceilings;
  out += fmt::format("Measured {}.\n\n", ceilings.created_at);
  out += "| Ceiling | Rate | Source |\n|---|---|---|\n";
  for (const auto& [dtype, ceiling] : ceilings.matmul) {
    if (const auto used = ceilings.matmul_ceiling(dtype)) {
      out += fmt::format("| {} matrix product | {:.4g} TFLOP/s | {} |\n", dtype, used->rate * 1e-12,
                         used->source);
    }
  }
  if (const auto bandwidth = ceilings.bandwidth_ceiling()) {
    out += fmt::format("| memory bandwidth | {:.4g} GB/s | {} |\n", bandwidth->rate * 1e-9,
                       bandwidth->source);
  }
  out += "\n";
}

void task_section(const MeasuredTask& task, std::string& out) {
  out += fmt::format("## {}\n\n", task.task_id);
  for (const auto& missing : task.missing) out += fmt::format("- Missing: {}\n", missing);
  if (!task.missing.empty()) out += "\n";
  for (const auto& workload : task.workloads) {
    out += fmt::format("### {}\n\n", workload.workload);
    if (workload.t_sol_s) {
      out += fmt::format("Speed-of-light bound T_SOL = {} ms ({}).\n\n",
                         milliseconds(*workload.t_sol_s), workload.bound);
    }
    out += "| Implementation | Evaluation | Latency (ms) | Stdev (ms) | Samples x calls | Timing "
           "| vs reference | vs baseline | %SOL | Reproduce |\n";
    out += "|---|---|---|---|---|---|---|---|---|---|\n";
    for (const MeasuredRow& row : workload.rows) {
      const std::string latency =
          row.mean_s ? milliseconds(*row.mean_s) + (row.from_cache ? " (cached)" : "") : row.outcome;
      const std::string stdev = row.mean_s ? milliseconds(row.stdev_s) : "";
      const std::string samples =
          row.mean_s ? fmt::format("{} x {}", row.samples, row.calls_per_sample) : "";
      const std::string timing = row.mean_s ? row.method + ", " + row.cache_policy : "";
      out += fmt::format("| {} | #{} | {} | {} | {} | {} | {} | {} | {} | `{}` |\n",
                         row.implementation, row.evaluation_id, latency, stdev, samples, timing,
                         optional_ratio(row.speedup_vs_reference),
                         optional_ratio(row.speedup_vs_baseline), percent_of_sol(row), row.command);
    }
    out += "\n";
  }
  if (!task.anchors.empty()) {
    out += "### Expert against anchors\n\n";
    out += "| Workload | Anchor | Anchor (ms) | Expert (ms) | Expert speedup |\n|---|---|---|---|---|\n";
    for (const auto& a : task.anchors) {
      out += fmt::format("| {} | {} | {} | {} | {:.2f}x |\n", a.workload, a.anchor,
                         milliseconds(a.anchor_s), milliseconds(a.expert_s), a.expert_speedup);
    }
    out += "\n";
  }
}

}  // namespace

std::string ResultsRenderer::render(const Report& report, const RenderOptions&) const {
  const ResultsPage& page = report.results;
  std::string out = "# Results\n\n";
  out += "<!-- Rendered from a store by `d2k report --format results`; edit the store, not this "
         "page. -->\n\n";
  out += fmt::format(
      "The measured state of the suite on one device, rendered from the store `{}`: per task "
      "and workload, the newest cold-cache evaluation that ran it, of the reference, the baseline, "
      "the expert and each anchor (a library path timed beside the expert, docs/task-format.md); "
      "hot-cache studies are in docs/timing.md. Speedups divide the "
      "reference's or baseline's latency by the row's; %SOL is T_SOL over the latency "
      "(docs/scores.md). Earlier studies are in git history (docs/history.md).\n\n",
      page.store_name);
  out += "Measure the store on a GPU host (one build, every task with an expert; it goes on past "
         "failures and prints a summary), then render this page:\n\n"
         "```\n"
         "tools/measure_results.sh results/h200.sqlite\n"
         "build/d2k report --store results/h200.sqlite --format results --output docs/results.md\n"
         "```\n\n"
         "Each row's command measures that row again (with `--store`).\n\n";
  if (page.device.empty()) {
    out += "The store holds no reference, baseline, expert or anchor evaluation.\n";
    return out;
  }
  if (!page.over_sol.empty()) {
    out += "**Latencies above their speed-of-light bound** (the bound or its work model is "
           "wrong):\n\n";
    for (const auto& over : page.over_sol) {
      out += fmt::format("- {} / {} / {}: {:.1f} %\n", over.task_id, over.workload,
                         over.implementation, over.fraction * 100.0);
    }
    out += "\n";
  }
  environment_section(page, out);
  for (const MeasuredTask& task : page.tasks) task_section(task, out);
  return out;
}

}  // namespace d2k::report
