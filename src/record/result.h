#pragma once
// The evaluation record (lowest shared data model). What one evaluation produces: per-workload verdicts, correctness evidence and latency. These
// rows are what the store keeps, `d2k eval` prints, and the scores and reports read.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/finding.h"
#include "record/kernel_audit.h"
#include "record/latency.h"
#include "record/speed_of_light.h"

namespace d2k::record {

// Bump when a change to the correctness or timing protocol makes old latencies incomparable.
inline constexpr int kProtocolVersion = 2;

enum class Verdict {
  passed,         // every trial correct, latency measured
  incorrect,      // ran, but an output or a state update is wrong
  runtime_error,  // the candidate raised, or a CUDA call failed
  crashed,        // the worker process died (signal or unexpected exit)
  timed_out,      // a call or the workload exceeded its time limit
  invalid,        // broke an implementation rule (wrong type, mutated a read-only input, ...)
  harness_error,  // d2k itself failed; not the candidate's fault
  task_error,     // the task is broken (its inputs module, its workloads); not the candidate's fault
};

std::string to_string(Verdict verdict);
Verdict parse_verdict(std::string_view text);

struct OutputCheck {
  std::string name;
  double rel_norm_error = 0.0;  // ||out - ref|| / ||ref||, in double
  double max_abs_error = 0.0;
  int64_t mismatches = 0;       // elements with |out - ref| > atol + rtol * |ref|
  int64_t elements = 0;
  int64_t nonfinite = 0;        // NaN or Inf in the candidate's output
  bool passed = false;
  std::string failure;          // empty when passed
};

struct TrialCheck {
  int trial = 0;
  uint64_t seed = 0;
  // "fresh"; "same_buffers" (fresh values into the previous trial's tensors); "last_timed_call"
  // (the outputs of the final timed call); "after_timing" (fresh values into the timed tensors)
  std::string kind;
  bool passed = false;
  std::vector<OutputCheck> outputs;
  std::string failure;
};

struct WorkloadResult {
  std::string workload;
  Verdict verdict = Verdict::harness_error;
  std::string reason_code;  // stable, machine-readable (e.g. "output_mismatch", "call_timeout")
  std::string message;      // human-readable detail, bounded
  std::vector<TrialCheck> trials;
  std::optional<Latency> latency;
  double wall_seconds = 0.0;
  bool from_cache = false;  // latency reused from an earlier identical evaluation
  std::optional<int64_t> workspace_bytes;  // what a native candidate's setup asked for
  std::optional<SpeedOfLight> sol;         // when the task has a work model and ceilings exist
  std::vector<Finding> findings;           // runtime-audit violations of this workload
  std::optional<KernelAudit> audit;        // the traced call on fresh inputs, before timing
  // The traced call on an input set the timed calls used, after timing (docs/protocol.md,
  // "Runtime audit"); nullopt when nothing was timed or traced.
  std::optional<KernelAudit> timed_audit;
  // Where the workload's wall time went: seconds per phase ("start", "inputs", "calls",
  // "digests", "outputs", "draws", "audit", "timing", "compare", "other"), both workers and the
  // orchestrator together.
  std::map<std::string, double> phases;
  // The time the protocol itself needs: the timed samples plus the checked calls of both
  // workers. wall_seconds over this is the evaluator's overhead (bench/evaluator_overhead.py).
  double irreducible_seconds = 0.0;
};

struct Environment {
  std::string device_name;  // GPU name, or the CPU model in CPU mode
  std::string driver;
  std::string cuda;
  std::string torch;
  std::string triton;
  std::string python;
  std::string host;
  std::string d2k_version;
};

// How a native candidate's shared object was obtained: from the build cache or by compiling.
struct Build {
  bool cached = false;
  double seconds = 0.0;  // the whole build step, compiler version check included
  std::string hash;      // the cache key: source, flags, compiler version, target
  std::string command;   // the compiler command line, as a shell would read it
};

struct EvaluationResult {
  int64_t id = 0;           // store row id, 0 until saved
  std::string created_at;   // ISO 8601 UTC
  std::string task_id;
  std::string impl_kind;    // reference | baseline | expert | solution | anchor
  std::string anchor;       // the anchor's name (tasks/<task>/anchors/<name>.py); else empty
  // False for a timing-only anchor (evaluation.timing_only_anchors): another operator, timed
  // beside the expert, whose outputs are not compared with the reference's.
  bool outputs_compared = true;
  std::string impl_path;
  std::string impl_hash;    // content hash of the implementation file
  // "full" (the scored protocol) or "quick" (`d2k eval --quick`: small shapes, nothing timed).
  std::string mode = "full";
  std::string device;       // cuda | cpu
  int protocol_version = kProtocolVersion;
  uint64_t base_seed = 0;   // secret during the run, stored afterwards for reproduction
  Environment environment;
  std::optional<Build> build;  // native candidates only
  std::vector<Finding> findings;  // static-analysis violations, before any workload ran
  // Which sandbox protections the candidate workers ran under, and which were unavailable
  // (docs/protocol.md, "Sandbox"); empty when no candidate worker ran.
  std::string sandbox;
  std::vector<WorkloadResult> workloads;

  bool passed() const;
};

void to_json(nlohmann::json& j, const OutputCheck& v);
void from_json(const nlohmann::json& j, OutputCheck& v);
void to_json(nlohmann::json& j, const TrialCheck& v);
void from_json(const nlohmann::json& j, TrialCheck& v);
void to_json(nlohmann::json& j, const WorkloadResult& v);
void from_json(const nlohmann::json& j, WorkloadResult& v);
void to_json(nlohmann::json& j, const Environment& v);
void from_json(const nlohmann::json& j, Environment& v);
void to_json(nlohmann::json& j, const Build& v);
void from_json(const nlohmann::json& j, Build& v);
void to_json(nlohmann::json& j, const EvaluationResult& v);
void from_json(const nlohmann::json& j, EvaluationResult& v);

}  // namespace d2k::record
