#pragma once
// The task folder model: what `tasks/<id>/` declares, validated and typed. Knows nothing of CUDA
// or Python; the worker reads the Python files, this layer only locates them.

#include <array>
#include <functional>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "task/implementation_rules.h"

namespace d2k::task {

enum class Device { cuda, cpu };

std::string to_string(Device device);
std::optional<Device> parse_device(std::string_view text);

// Which implementation of a task an evaluation runs. `solution` is a file given by the user.
// An anchor is a library path the repository times beside the expert
// (tasks/<task>/anchors/<name>.py): torch.compile of the reference, a vendor library.
enum class ImplKind { reference, baseline, expert, solution, anchor };

std::string to_string(ImplKind kind);
std::optional<ImplKind> parse_impl_kind(std::string_view text);

// The paper's four operator categories, which a sweep plan may select tasks by.
enum class Category {
  attention_recurrent,               // sparse attention, decoding with cached state, recurrences
  moe_distributed,                   // grouped GEMM, routing, dispatch and combine
  indexing_sampling_control,         // index sharing, exact sampling, compact decision state
  quantization_training_structural,  // low precision, clustering, optimizer updates, fusion
};

std::string to_string(Category category);
std::optional<Category> parse_category(std::string_view text);

// What a candidate is written in: Python (solution.py, Triton kernels), CUDA C++ compiled with
// nvcc for CUDA tasks, or C++ compiled with the host compiler for CPU tasks (docs/native-abi.md).
enum class Language { python, cuda, cpp };

std::string to_string(Language language);
std::optional<Language> parse_language(std::string_view text);
// By extension: .py, .cu, .cpp/.cc/.cxx; nullopt for any other file.
std::optional<Language> language_of_file(const std::filesystem::path& file);

struct Tolerance {
  double rel_norm_rtol = 0.0;  // primary gate: ||out - ref|| / ||ref||
  double atol = 0.0;           // reported, with rtol, as an elementwise mismatch count
  double rtol = 0.0;
  double grader_scale = 1.0;   // the gate applies rel_norm_rtol * grader_scale

  double effective_rel_norm_rtol() const { return rel_norm_rtol * grader_scale; }
  double effective_atol() const { return atol * grader_scale; }
  double effective_rtol() const { return rtol * grader_scale; }
};

struct InputRules {
  std::vector<std::string> static_inputs;   // Python scalars fixed per workload
  std::vector<std::string> dynamic_inputs;  // tensors drawn fresh for every trial
  std::vector<std::string> mutable_inputs;  // tensors the operator updates in place (state)

  bool is_mutable(std::string_view name) const;
};

// How native (cuda, cpp) candidates are built (the "evaluation.native" object of config.json).
struct NativeBuild {
  std::optional<std::vector<std::string>> nvcc_flags;  // replace nvcc's default flags
  std::optional<std::vector<std::string>> cxx_flags;   // replace the host compiler's
  double compile_timeout_seconds = 300.0;
};

// The reference computation's least work on one workload, from the task's work model.
struct Work {
  double flops = 0.0;  // floating-point operations
  double bytes = 0.0;  // least device-memory traffic: every input read once, every output written
};

struct Workload {
  std::string label;
  nlohmann::json params;     // every key of the workload entry; passed to get_inputs(config)
  std::optional<Work> work;  // when the task declares a work model
  // Device memory a call may hold beyond its inputs and outputs, in bytes: the task's
  // evaluation.peak_aux_bytes for this workload; nullopt when the task sets no bound.
  std::optional<int64_t> peak_aux_bytes;
  // Calls of run(...) the candidate makes for the distribution check's fit test (its draws
  // formula on this workload); 0 when the task has no distribution check.
  int distribution_draws = 0;
};

// The "work_model" object of config.json (docs/task-format.md): formulas of a workload's
// parameters (fixed_params with the workload entry over them), evaluated when the task loads.
struct WorkModel {
  std::string flops;
  std::string bytes;
  std::string math_dtype;  // "bf16", "fp16", "fp32" or "fp8": whose matrix ceiling bounds the flops
};

// The math dtypes a work model may name.
inline constexpr std::array<std::string_view, 4> kMathDtypes{"bf16", "fp16", "fp32", "fp8"};
// The math dtypes `d2k doctor` times itself; fp8 (e4m3 products, as DeepSeek-style FP8 GEMMs
// run them) is bounded by the datasheet's rate alone.
inline constexpr std::array<std::string_view, 3> kMeasuredMathDtypes{"bf16", "fp16", "fp32"};

// An output checked as a sample from a distribution instead of against the reference's values
// (an entry of evaluation.output_checks with "kind": "distribution"; docs/protocol.md, "What is
// compared"). The reference module's target_probabilities(*arguments) gives the target.
struct DistributionCheck {
  std::string output;          // the sampled output, one of evaluation.outputs
  std::string seed_argument;   // the static integer argument that seeds the sampler
  std::string draws;           // formula of the workload parameters: calls for the fit test
  double significance = 1e-6;  // the fit test rejects when its p-value is below this
};

// How the evaluator runs this task (the "evaluation" object of config.json).
struct EvaluationSpec {
  Device device = Device::cuda;
  std::string timing_method = "events";  // a name from the timing method registry, for every
                                         // implementation of every workload
  std::string cache_policy = "cold";     // "cold" or "hot" (docs/timing.md, "Cache policy")
  std::string stopping = "fixed";        // "fixed" or "noise" (docs/timing.md, "Stopping")
  std::vector<std::string> arguments;    // names of run(...)'s positional arguments, in order
  std::vector<std::string> outputs;      // names of the returned tensors, in order
  int correctness_trials = 3;
  double min_sample_seconds = 1.0;       // each sample lasts at least this (kMinSampleSeconds)
  int timing_samples = 5;                // batches (events) or replays (graph)
  double call_timeout_seconds = 120.0;   // no progress for this long: the worker is killed
  double workload_timeout_seconds = 1200.0;
  std::vector<Language> languages{Language::python};  // what candidates may be written in
  NativeBuild native;
  // Outputs checked as samples (at most one); every other output is compared with the reference.
  std::vector<DistributionCheck> distribution_checks;
  // A formula of the workload parameters bounding a call's auxiliary device memory (bytes); the
  // runtime audit enforces it. Evaluated per workload into Workload::peak_aux_bytes.
  std::optional<std::string> peak_aux_bytes;
  // Anchors that compute a related operator rather than the task's own (dense attention beside a
  // sparse task): timed like the others, their outputs not compared. The expert must still beat
  // them, and the results mark them.
  std::vector<std::string> timing_only_anchors;

  bool accepts(Language language) const;
  // The distribution check of `output`, or nullptr when it is compared by value.
  const DistributionCheck* distribution_check(std::string_view output) const;
};

// The shortest sample a GPU task's evaluation may take (the paper's protocol); only `d2k eval
// --quick`, which times nothing, runs faster. CPU tasks (the pipeline demo and the test
// fixtures) time the host's steady clock, which publishes no kernel latency, and may go lower.
inline constexpr double kMinSampleSeconds = 1.0;

struct Task {
  std::string id;
  std::filesystem::path dir;
  std::string title;  // first heading of task_description.md
  std::optional<Category> category;  // config.json's "category"; optional for fixtures and demos
  nlohmann::json config;
  nlohmann::json fixed_params;
  std::vector<Workload> workloads;
  // Small shapes for `d2k eval --quick`: correctness in seconds, nothing timed or scored.
  std::vector<Workload> quick_workloads;
  std::optional<WorkModel> work_model;
  InputRules input_rules;
  Tolerance tolerance;
  EvaluationSpec evaluation;
  std::vector<std::string> requirements;  // human-readable, from implementation_requirements.yaml
  ImplementationRules rules;               // machine-checked, from the same file

  const Workload* find_workload(std::string_view label) const;
  // The scored workloads, then the quick ones.
  std::vector<std::reference_wrapper<Workload>> all_workloads();
  // The file that implements `kind`: reference.py; for a baseline or expert its folder's
  // solution.py, or its native solution.cu / solution.cpp when there is no solution.py.
  std::filesystem::path implementation_file(ImplKind kind) const;
  // The task's anchors: the stems of anchors/*.py, sorted; empty without an anchors folder.
  std::vector<std::string> anchor_names() const;
  // anchors/<name>.py; throws std::invalid_argument naming the task's anchors when it has no
  // anchor of that name.
  std::filesystem::path anchor_file(const std::string& name) const;
};

}  // namespace d2k::task
