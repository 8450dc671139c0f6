#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/tensor_file.h"
#include "eval/trial_plan.h"
#include "timing/measurement_method.h"

namespace d2k::eval {

enum class WorkerRole { reference, candidate };

// Everything a worker process needs, sent over the private channel (not argv or the
// environment, which other processes can read).
struct WorkerJob {
  WorkerRole role = WorkerRole::candidate;
  std::filesystem::path task_dir;
  std::filesystem::path implementation;  // the source file, whatever its language
  std::string language = "python";       // "python" | "cuda" | "cpp" (task::Language names)
  std::filesystem::path library;         // native candidates: the built shared object
  std::string device;          // "cuda" | "cpu"
  nlohmann::json config;       // workload entry over fixed_params; the worker adds seed, device
  std::vector<std::string> arguments;
  std::vector<std::string> mutable_inputs;
  std::vector<std::string> outputs;
  // Native candidates: the reference's outputs of trial 0 (name, dtype, shape, residency; no
  // path), which the worker allocates for every call.
  std::vector<TensorFile> output_specs;
  std::vector<PlannedTrial> trials;  // candidate: before timing, then the after-timing trial
  std::string timing_method;
  timing::Settings timing;
  std::filesystem::path scratch;  // where the worker writes tensor files
  // Candidate on a GPU: make the runtime audit's traced call after the checks and timing.
  bool audit_call = false;
  // A task with a distribution check (docs/protocol.md, "What is compared"): the reference
  // reports target_probabilities(...) for every trial; the candidate makes `distribution_draws`
  // more calls on the last correctness trial's inputs, argument `distribution_seed_index`
  // replaced per draw by a seed derived from the trial's, and reports their samples of output
  // `distribution_output`. Empty output: no distribution check.
  std::string distribution_output;
  int distribution_seed_index = -1;
  int distribution_draws = 0;
};

void to_json(nlohmann::json& j, const WorkerJob& v);
void from_json(const nlohmann::json& j, WorkerJob& v);

}  // namespace d2k::eval
