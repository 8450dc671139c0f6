#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/result_table.h"
#include "eval/evaluator.h"
#include "runtime/cuda_driver.h"
#include "store/store.h"

namespace d2k::cli {
namespace {

struct EvalFlags {
  std::string task;
  std::string solution;
  std::string impl;
  std::string anchor;
  std::string workload;
  std::string timing;
  std::string cache;
  std::string stopping;
  uint64_t base_seed = 0;
  bool quick = false;
  bool json = false;
  bool no_cache = false;
  bool no_store = false;
  bool no_sandbox = false;
  bool build_only = false;
};

// A GPU task on a machine without a usable device: say so and point at the CPU demo.
int explain_missing_device(const task::Task& task, const std::string& reason) {
  std::fprintf(stderr,
               "d2k: task %s needs a CUDA GPU, and none is usable here: %s\n"
               "     To see the evaluation pipeline on this machine, run the CPU demo:\n"
               "       d2k eval cpu_demo_softmax --impl baseline\n",
               task.id.c_str(), reason.c_str());
  return kExitUsage;
}

// `--build-only`: the compile step of an evaluation and nothing else.
int build_only(const task::Task& task, const std::string& solution, bool json) {
  eval::EvaluatorOptions options;
  options.solution = solution;
  options.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  const native::BuildOutcome outcome = eval::Evaluator(task, nullptr, options).build_only();
  if (json) {
    const record::Build build{outcome.cached, outcome.seconds, outcome.hash, outcome.command};
    nlohmann::json out = {{"ok", outcome.ok}, {"build", build}, {"library", outcome.library.string()}};
    if (!outcome.ok) out["diagnostics"] = outcome.diagnostics;
    fmt::print("{}\n", out.dump(2));
  } else if (!outcome.ok) {
    fmt::print("{}\n", outcome.diagnostics);
  } else {
    fmt::print("{} {}\n", outcome.cached ? "cached" : "built", outcome.library.string());
  }
  return outcome.ok ? kExitPassed : kExitFailed;
}

}  // namespace

std::function<int()> define_eval(CLI::App& app, const GlobalOptions& global) {
  app.footer(
      "Runs correctness trials against the reference, then timing, on every workload. Exit "
      "status: 0 when every workload passed, 1 when any failed, 2 on a usage or set-up error "
      "(a store that cannot be written is one, found before anything runs). When the store "
      "refuses the record at the end, the record is written to a JSON file beside it (or in "
      "the scratch folder) and the command says where.");
  auto flags = std::make_shared<EvalFlags>();
  app.add_option("task", flags->task, "task id or folder")->required();
  auto* solution = app.add_option("--solution", flags->solution,
                                  "candidate file: .py, .cu (CUDA C++) or .cpp (C++); the task's "
                                  "evaluation.languages must accept it")->check(CLI::ExistingFile);
  auto* impl = app.add_option("--impl", flags->impl,
                              "a task implementation instead of a file: reference, baseline, "
                              "expert, or anchor:NAME (tasks/<task>/anchors/NAME.py)")
                   ->check([](const std::string& value) -> std::string {
                     if (value == "reference" || value == "baseline" || value == "expert") return "";
                     if (value.starts_with("anchor:") && value.size() > 7) return "";
                     return "give reference, baseline, expert or anchor:NAME";
                   })
                   ->excludes(solution);
  app.add_option("--anchor", flags->anchor,
                 "the task's anchor NAME (a library path timed beside the expert); the same as "
                 "--impl anchor:NAME")
      ->excludes(solution)
      ->excludes(impl);
  app.add_option("--workload", flags->workload, "only this workload label");
  app.add_option("--timing", flags->timing, "timing method instead of the task's (see `d2k timing-methods`)");
  app.add_option("--cache", flags->cache,
                 "cache policy instead of the task's: cold (inputs rotate so none is in L2 when a "
                 "call starts) or hot (one input set, replayed)")
      ->check(CLI::IsMember({"cold", "hot"}));
  app.add_option("--stopping", flags->stopping,
                 "stopping rule instead of the task's: fixed (the task's sample count) or noise "
                 "(until the mean's relative standard error is below 0.5 %, at most 30 s)")
      ->check(CLI::IsMember({"fixed", "noise"}));
  auto* base_seed = app.add_option("--base-seed", flags->base_seed,
                                   "the base seed of a stored evaluation, to run it again on the "
                                   "same inputs (see `d2k results --id N`)");
  app.add_flag("--quick", flags->quick,
               "the task's small quick_workloads, correctness only, nothing timed: seconds, for "
               "diagnosis; the record is marked quick and never scored");
  app.add_flag("--json", flags->json, "print the evaluation record as JSON");
  app.add_flag("--no-cache", flags->no_cache, "measure reference/baseline/expert/anchors again");
  app.add_flag("--no-store", flags->no_store, "do not save the result");
  app.add_flag("--no-sandbox", flags->no_sandbox,
               "run candidate workers without the sandbox (the record says so)");
  app.add_flag("--build-only", flags->build_only,
               "compile a .cu/.cpp candidate (or find it in the build cache) and stop; needs no "
               "GPU. Exit 0 when it built, 1 on a compile error (the compiler's output follows)")
      ->needs(solution);
  return [flags, &global, base_seed] {
    if (flags->impl.starts_with("anchor:")) {
      flags->anchor = flags->impl.substr(7);
      flags->impl.clear();
    }
    if (flags->solution.empty() && flags->impl.empty() && flags->anchor.empty()) {
      throw std::runtime_error(
          "give --solution FILE, --impl reference|baseline|expert or --anchor NAME");
    }
    const task::Task task = resolve_task(global, flags->task);
    // Before the device check: a language the task refuses is the first thing to fix.
    if (!flags->solution.empty()) eval::candidate_language(task, flags->solution);
    if (flags->build_only) return build_only(task, flags->solution, flags->json);
    // The device first: a machine that cannot run the task gets no store file either.
    if (task.evaluation.device == task::Device::cuda) {
      const auto availability = runtime::probe_cuda_device();
      if (!availability.available) return explain_missing_device(task, availability.reason);
    }
    std::optional<store::Store> store;
    if (!flags->no_store) store.emplace(open_store_for_writing(global));
    eval::EvaluatorOptions options;
    if (!flags->solution.empty()) {
      options.kind = task::ImplKind::solution;
    } else if (!flags->anchor.empty()) {
      options.kind = task::ImplKind::anchor;
      options.anchor = flags->anchor;
    } else {
      options.kind = *task::parse_impl_kind(flags->impl);
    }
    options.solution = flags->solution;
    if (!flags->workload.empty()) options.workload = flags->workload;
    options.use_cache = !flags->no_cache;
    if (!flags->timing.empty()) options.timing_method = flags->timing;
    if (!flags->cache.empty()) options.cache_policy = flags->cache;
    if (!flags->stopping.empty()) options.stopping = flags->stopping;
    if (*base_seed) options.base_seed = flags->base_seed;
    options.quick = flags->quick;
    const bool tty = isatty(STDERR_FILENO);
    options.progress = [tty](const std::string& line) {
      std::fprintf(stderr, tty ? "\r\033[K%s" : "%s\n", line.c_str());
      std::fflush(stderr);
    };
    options.sandbox = !flags->no_sandbox;
    // The default store may sit in a task's or candidate's folder; hide it either way.
    options.store_path = store_path(global);
    eval::Evaluator evaluator(task, store ? &*store : nullptr, options);
    const record::EvaluationResult result = evaluator.run();
    if (tty) std::fprintf(stderr, "\r\033[K");
    if (flags->json) {
      fmt::print("{}\n", nlohmann::json(result).dump(2));
    } else {
      fmt::print("{}", render_evaluation(result));
    }
    if (evaluator.unsaved_record()) {
      std::fprintf(stderr, "d2k: the store could not take this evaluation; its record is in %s\n",
                   evaluator.unsaved_record()->c_str());
    }
    return result.passed() ? kExitPassed : kExitFailed;
  };
}

}  // namespace d2k::cli
