#pragma once
// Every message between the orchestrator and a worker (docs/protocol.md, "Processes"), with its
// JSON form. A message travels as one JSON object whose "event" names its type; Channel frames
// and authenticates the lines. The orchestrator sends one Setup, then a Workload per workload
// (answering a candidate's fresh-call Audit with an AuditDecision), then Exit; the worker answers
// a Workload with progress, evidence and a Done or a Failure.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/tensor_file.h"
#include "record/kernel_audit.h"
#include "record/latency.h"
#include "timing/measurement_method.h"

namespace d2k::protocol {

enum class WorkerRole { reference, candidate };

// One call whose outputs are checked against the reference.
struct PlannedTrial {
  int index = 0;
  uint64_t seed = 0;
  // "fresh": new input tensors. "same_buffers": fresh values written into the previous trial's
  // tensors, so a result cached by pointer is caught. "after_timing": the same, on the tensors
  // the timed calls used, after timing.
  std::string kind;
};

// ---- orchestrator to worker -------------------------------------------------------------------

// What stays the same for the worker's whole life (every workload of one evaluation).
struct Setup {
  static constexpr const char* kEvent = "setup";
  WorkerRole role = WorkerRole::candidate;
  std::filesystem::path task_dir;
  std::filesystem::path implementation;  // the source file, whatever its language
  // Python: a folder that goes on sys.path before the implementation's own. An anchor's is the
  // task folder, so that it can import the reference it compiles; empty for everything else.
  std::filesystem::path import_dir;
  std::string language = "python";       // "python" | "cuda" | "cpp" (task::Language names)
  std::filesystem::path library;         // native candidates: the built shared object
  std::string device;                    // "cuda" | "cpu"
  std::vector<std::string> arguments;
  std::vector<std::string> mutable_inputs;
  std::vector<std::string> outputs;
  std::string timing_method;
  timing::Settings timing;
  std::string cache_policy = "cold";  // "cold": rotate over input sets; "hot": one set
  std::filesystem::path scratch;       // where the worker writes tensor files
  bool audit_calls = false;  // a GPU candidate: traced calls before and after timing
};

// One workload to run.
struct Workload {
  static constexpr const char* kEvent = "workload";
  int index = 0;
  std::string label;
  nlohmann::json config;  // the workload entry over fixed_params; the worker adds seed, device
  // Reference: every trial. Candidate: the trials before timing, then the after-timing trial.
  std::vector<PlannedTrial> trials;
  // Native candidates: the reference's outputs of trial 0 (name, dtype, shape, residency; no
  // path), which the worker allocates for every call.
  std::vector<TensorFile> output_specs;
  bool time_calls = true;  // false in quick mode: correctness only
  // The task's bound on auxiliary memory; the input-set rotation is sized so that the outputs of
  // every set together exceed it (docs/timing.md, "Cache policy").
  std::optional<int64_t> peak_aux_bytes;
  // A task with a distribution check (docs/protocol.md, "What is compared"): the reference
  // reports target_probabilities(...) for every trial; the candidate makes `distribution_draws`
  // more calls on the last correctness trial's inputs, argument `distribution_seed_index`
  // replaced per draw by a seed derived from the trial's, and reports their samples of output
  // `distribution_output`. Empty output: no distribution check.
  std::string distribution_output;
  int distribution_seed_index = -1;
  int distribution_draws = 0;
  // `d2k profile` (time_calls false): after the trials, a warm-up call and this many calls on the
  // last trial's inputs between cuProfilerStart and cuProfilerStop, each in an NVTX range.
  int profile_calls = 0;
  // Keys of `config` that get_inputs need not read (the label, metadata, the names the task's
  // formulas use); any other key it never reads is a task error (`task_parameter`).
  std::vector<std::string> unread_allowed;
};

// The answer to a candidate's fresh-call Audit: time the calls, or stop the workload here.
struct AuditDecision {
  static constexpr const char* kEvent = "audit_decision";
  bool proceed = true;
};

struct Exit {
  static constexpr const char* kEvent = "exit";
};

// ---- worker to orchestrator -------------------------------------------------------------------

struct Ready {
  static constexpr const char* kEvent = "ready";
  nlohmann::json environment;  // torch, triton, cuda, python, device_name, driver
};

// What the worker is doing now; a timing phase says how long it may take.
struct Progress {
  static constexpr const char* kEvent = "progress";
  std::string phase;  // "call", "draws", "audit", "inputs", "timing"
  int trial = -1;
  int done = -1;
  double expected_seconds = 0.0;
};

struct Trial {
  static constexpr const char* kEvent = "trial";
  int trial = 0;
  uint64_t seed = 0;
  std::string kind;
  std::map<std::string, std::string> inputs_before;  // argument -> digest (or "repr:...")
  std::map<std::string, std::string> inputs_after;
  std::vector<TensorFile> outputs;
  std::vector<TensorFile> state;  // mutable inputs after the call, named "state:<argument>"
};

// The reference's exact target distribution of one trial's sampled output.
struct Targets {
  static constexpr const char* kEvent = "targets";
  int trial = 0;
  std::vector<TensorFile> files;  // probabilities, support
};

// The candidate's fit-test draws of the sampled output, [draws, ...].
struct Draws {
  static constexpr const char* kEvent = "draws";
  int trial = 0;
  TensorFile samples;
};

struct Workspace {
  static constexpr const char* kEvent = "workspace";
  uint64_t bytes = 0;
};

// A traced call: "fresh" (on fresh inputs, before timing; the worker then waits for an
// AuditDecision) or "timed_set" (on an input set the timed calls used, after timing).
struct Audit {
  static constexpr const char* kEvent = "audit";
  std::string call;
  record::KernelAudit audit;
};

// The timing's result, and the digests of every input set the timed calls rotated over, taken
// before and after timing (the set the last timed call used is also reported as a Trial).
struct TimingResult {
  static constexpr const char* kEvent = "timing";
  record::Latency latency;
  std::vector<std::map<std::string, std::string>> sets_before;
  std::vector<std::map<std::string, std::string>> sets_after;
};

// The workload is finished. `phases`: seconds the worker spent per phase; `checked_call_seconds`:
// host time of the checked (untimed) calls themselves, which with the timed samples is the time
// the protocol cannot do without.
struct Done {
  static constexpr const char* kEvent = "done";
  std::map<std::string, double> phases;
  double checked_call_seconds = 0.0;
};

struct Failure {
  static constexpr const char* kEvent = "failure";
  std::string verdict;
  std::string reason_code;
  std::string message;
};

// ---- JSON forms -------------------------------------------------------------------------------

// The message as one JSON object with its "event" set.
template <typename Message>
nlohmann::json encode(const Message& message) {
  nlohmann::json j = message;
  j["event"] = Message::kEvent;
  return j;
}

// The "event" of a received object; empty when it has none.
std::string event_of(const nlohmann::json& j);

// Throws nlohmann::json::exception when a field is missing or of the wrong type.
template <typename Message>
Message decode(const nlohmann::json& j) {
  return j.get<Message>();
}

void to_json(nlohmann::json& j, const PlannedTrial& v);
void from_json(const nlohmann::json& j, PlannedTrial& v);
void to_json(nlohmann::json& j, const Setup& v);
void from_json(const nlohmann::json& j, Setup& v);
void to_json(nlohmann::json& j, const Workload& v);
void from_json(const nlohmann::json& j, Workload& v);
void to_json(nlohmann::json& j, const AuditDecision& v);
void from_json(const nlohmann::json& j, AuditDecision& v);
void to_json(nlohmann::json& j, const Exit& v);
void from_json(const nlohmann::json& j, Exit& v);
void to_json(nlohmann::json& j, const Ready& v);
void from_json(const nlohmann::json& j, Ready& v);
void to_json(nlohmann::json& j, const Progress& v);
void from_json(const nlohmann::json& j, Progress& v);
void to_json(nlohmann::json& j, const Trial& v);
void from_json(const nlohmann::json& j, Trial& v);
void to_json(nlohmann::json& j, const Targets& v);
void from_json(const nlohmann::json& j, Targets& v);
void to_json(nlohmann::json& j, const Draws& v);
void from_json(const nlohmann::json& j, Draws& v);
void to_json(nlohmann::json& j, const Workspace& v);
void from_json(const nlohmann::json& j, Workspace& v);
void to_json(nlohmann::json& j, const Audit& v);
void from_json(const nlohmann::json& j, Audit& v);
void to_json(nlohmann::json& j, const TimingResult& v);
void from_json(const nlohmann::json& j, TimingResult& v);
void to_json(nlohmann::json& j, const Done& v);
void from_json(const nlohmann::json& j, Done& v);
void to_json(nlohmann::json& j, const Failure& v);
void from_json(const nlohmann::json& j, Failure& v);

}  // namespace d2k::protocol
