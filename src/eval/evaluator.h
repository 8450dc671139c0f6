#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "native/builder.h"
#include "protocol/messages.h"
#include "sandbox/policy.h"
#include "record/result.h"
#include "store/store.h"
#include "task/task.h"

namespace d2k::eval {

struct EvaluatorOptions {
  task::ImplKind kind = task::ImplKind::solution;
  std::filesystem::path solution;        // for ImplKind::solution; .py, .cu or .cpp
  std::string anchor;                    // for ImplKind::anchor: tasks/<task>/anchors/<anchor>.py
  std::optional<std::string> workload;   // only this label
  bool use_cache = true;                 // reuse stored reference/baseline/expert latencies
  // Quick mode: the task's quick_workloads (small shapes), correctness trials only, nothing
  // timed; the record says so and scores and the latency cache ignore it.
  bool quick = false;
  std::optional<std::string> timing_method;  // overrides the task's evaluation.timing
  std::optional<std::string> cache_policy;   // overrides the task's evaluation.cache
  std::optional<std::string> stopping;       // overrides the task's evaluation.stopping
  std::optional<uint64_t> base_seed;  // reproduce a stored evaluation's inputs (not secret then)
  std::filesystem::path worker_binary;   // the d2k executable; defaults to this process's
  std::filesystem::path scratch_root;    // where workers write tensors; defaults to $D2K_SCRATCH or the temp dir
  std::function<void(const std::string&)> progress;  // one line per phase
  bool sandbox = true;  // run candidate workers in the sandbox (docs/protocol.md, "Sandbox")
  std::filesystem::path store_path;  // hidden from candidate workers; empty when there is none
  // `d2k profile` (docs/profiling.md): nothing timed or audited; the candidate worker runs
  // unsandboxed under `candidate_launcher` (a profiler's command line, the worker's following
  // it) and makes `profile_calls` calls after its correctness trials.
  int profile_calls = 0;
  std::vector<std::string> candidate_launcher;
  // When requested, the running worker is killed and run() throws EvaluationCancelled; nothing
  // is stored.
  std::stop_token stop;
};

class EvaluationCancelled : public std::runtime_error {
 public:
  EvaluationCancelled() : std::runtime_error("the evaluation was cancelled") {}
};

// The evaluation pipeline for one implementation of one task: per workload, the reference worker
// computes outputs for the secret-seeded trials, then the candidate worker runs the correctness
// trials, the audit call and the timing protocol; the orchestrator compares outputs itself and
// records a verdict. Both workers serve every workload of the evaluation; a crash, hang or
// failure ends that workload only, and its worker is replaced for the next. A native candidate
// is compiled once, before any worker starts; a compile error is every workload's verdict.
class Evaluator {
 public:
  // Throws std::runtime_error when the implementation is missing, its language is unknown or
  // the task does not accept it, or the timing method is unknown.
  Evaluator(const task::Task& task, store::Store* store, EvaluatorOptions options);

  // Runs every selected workload and saves the result (when a store is given). When the store
  // refuses it, the record goes to a file instead (store/unsaved_record.h): unsaved_record().
  record::EvaluationResult run();
  // Where run() kept the record the store refused; empty when it was stored.
  const std::optional<std::filesystem::path>& unsaved_record() const { return unsaved_record_; }

  // Compiles a native candidate, or finds it in the build cache, without evaluating it: a
  // compile check that also works on a machine without the task's device. Throws
  // std::runtime_error for a Python candidate.
  native::BuildOutcome build_only() const;

 private:
  struct Workers;
  // Creates the evaluation's reference and candidate worker sessions, once.
  void start_workers(Workers& workers);
  record::WorkloadResult evaluate_workload(size_t index, const task::Workload& workload,
                                           Workers& workers, record::Environment& environment);
  protocol::Setup worker_setup(protocol::WorkerRole role, const std::filesystem::path& scratch) const;
  // Compiles (or finds in the cache) the native candidate; notes how in the progress lines.
  native::BuildOutcome build(const std::string& device_name) const;
  void note(const std::string& line) const;
  // Saves `result` in the store, or in a file beside it when the store refuses it.
  void save(record::EvaluationResult& result);
  // --timing when given, else the task's method (the same for every implementation).
  std::string timing_method() const;
  std::string cache_policy() const;
  // False for an anchor the task lists in evaluation.timing_only_anchors.
  bool outputs_compared() const;
  // What a candidate worker of this workload may see and do.
  sandbox::Policy candidate_policy(const std::filesystem::path& scratch) const;

  const task::Task& task_;
  store::Store* store_;
  EvaluatorOptions options_;
  std::filesystem::path implementation_;
  task::Language language_ = task::Language::python;
  std::filesystem::path library_;  // the native candidate's shared object, once built
  uint64_t base_seed_;
  std::string sandbox_summary_;  // from the first candidate worker
  std::optional<std::filesystem::path> unsaved_record_;
};

// The rules an anchor's static check applies. Anchors are the repository's own library paths:
// the defaults keep them from reaching the harness as they keep any candidate, but not the
// task's rules, which forbid exactly the libraries an anchor times; an anchor may also keep a
// compiled function per shape and import the reference it compiles.
task::ImplementationRules anchor_rules();

// The language of `file` (by extension) when `task` accepts it; otherwise throws
// std::runtime_error saying which languages the task accepts.
task::Language candidate_language(const task::Task& task, const std::filesystem::path& file);

// Name of the device this machine evaluates `device` tasks on (GPU name or CPU model); the
// latency cache is keyed by it.
std::string describe_device(task::Device device);

}  // namespace d2k::eval
