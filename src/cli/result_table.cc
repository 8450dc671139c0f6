#include "cli/result_table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace d2k::cli {

std::string format_seconds(double seconds) {
  if (seconds >= 1.0) return fmt::format("{:.3f} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.3f} ms", seconds * 1e3);
  if (seconds >= 1e-6) return fmt::format("{:.2f} us", seconds * 1e6);
  return fmt::format("{:.1f} ns", seconds * 1e9);
}

namespace {

// The largest error, or what was wrong where no error could be measured: an output of another
// dtype or shape, or NaN where the reference is finite, has no meaningful distance.
std::string error_column(const record::WorkloadResult& w, double worst) {
  if (w.trials.empty()) return "-";
  for (const auto& [reason, label] : {std::pair{"output_dtype", "dtype"}, {"output_shape", "shape"},
                                      {"nonfinite", "NaN/Inf"}, {"output_count", "count"},
                                      {"output_type", "type"}, {"output_device", "device"},
                                      {"state_count", "count"}}) {
    if (w.reason_code == reason) return label;
  }
  return fmt::format("{:.2e}", worst);
}

}  // namespace

std::string format_sol_percent(const std::optional<record::SpeedOfLight>& sol) {
  if (!sol || !std::isfinite(sol->fraction)) return "-";
  return fmt::format("{:.1f}%", 100.0 * sol->fraction);
}

std::string render_audit_lines(const record::EvaluationResult& result) {
  std::vector<std::string> tracers;
  std::vector<std::string> untraced;
  const auto add = [](std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
  };
  for (const auto& w : result.workloads) {
    if (!w.audit || w.from_cache) continue;
    if (w.audit->unavailable.empty()) {
      add(tracers, w.audit->tracer);
    } else {
      add(untraced, w.audit->unavailable);
    }
  }
  std::string out;
  for (const auto& tracer : tracers) {
    out += fmt::format("audit: traced by {}{}\n", tracer.empty() ? "an unnamed tracer" : tracer,
                       result.id > 0 ? fmt::format(" (d2k results --kernels {})", result.id) : "");
  }
  for (const auto& why : untraced) out += "audit: not audited: " + why + "\n";
  return out;
}

std::string render_evaluation(const record::EvaluationResult& result) {
  std::string out = fmt::format("{} · {} ({}) · {} · {}\n", result.task_id, result.impl_kind,
                                result.impl_path, result.environment.device_name,
                                result.created_at);
  if (result.build) {
    const bool failed = std::any_of(result.workloads.begin(), result.workloads.end(),
                                    [](const auto& w) { return w.reason_code == "compile_error"; });
    if (result.build->cached) {
      out += fmt::format("build: cached {}\n", result.build->hash);
    } else {
      out += fmt::format("build: {} in {:.2f} s ({})\n", failed ? "failed" : "compiled",
                         result.build->seconds, result.build->hash);
    }
  }
  if (!result.sandbox.empty()) out += "sandbox: " + result.sandbox + "\n";
  out += render_audit_lines(result);
  for (const auto& finding : result.findings) {
    const std::string place =
        finding.line > 0 ? fmt::format("{}:{}", finding.file, finding.line) : finding.file;
    out += fmt::format("invalid: {}: {} [{}]\n", place, finding.message, finding.rule);
  }
  out += fmt::format("{:<32} {:<13} {:>10} {:>12} {:>8} {:>9} {:>7}  {}\n", "workload", "verdict",
                     "max err", "mean", "cv", "samples", "%SOL", "reason");
  for (const auto& w : result.workloads) {
    double worst = 0.0;
    for (const auto& trial : w.trials) {
      for (const auto& output : trial.outputs) worst = std::max(worst, output.rel_norm_error);
    }
    const std::string mean = w.latency ? format_seconds(w.latency->mean_s) : "-";
    const std::string cv = w.latency ? fmt::format("{:.2f}%", 100.0 * w.latency->cv()) : "-";
    const std::string samples =
        w.latency ? fmt::format("{}x{}", w.latency->samples_s.size(), w.latency->calls_per_sample)
                  : "-";
    std::string reason = w.reason_code;
    if (w.from_cache) reason = "(cached)";
    out += fmt::format("{:<32} {:<13} {:>10} {:>12} {:>8} {:>9} {:>7}  {}\n", w.workload,
                       record::to_string(w.verdict), error_column(w, worst),
                       mean, cv, samples, format_sol_percent(w.sol), reason);
  }
  for (const auto& w : result.workloads) {
    if (w.verdict == record::Verdict::passed || w.message.empty()) continue;
    out += fmt::format("\n{} — {} ({}):\n{}\n", w.workload, record::to_string(w.verdict),
                       w.reason_code, w.message);
  }
  out += fmt::format("\n{}: {} of {} workloads passed (evaluation {})\n",
                     result.passed() ? "PASSED" : "FAILED",
                     std::count_if(result.workloads.begin(), result.workloads.end(),
                                   [](const auto& w) { return w.verdict == record::Verdict::passed; }),
                     result.workloads.size(), result.id);
  return out;
}

}  // namespace d2k::cli
