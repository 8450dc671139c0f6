#pragma once
// The machine-checked part of implementation_requirements.yaml (docs/task-format.md): what a
// candidate may not import, call or touch, whether it must bring its own kernels, and which
// libraries a native candidate may not link. The defaults live in default_implementation_rules();
// a task's optional `rules` mapping states only its differences.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace d2k::task {

struct ImplementationRules {
  std::vector<std::string> forbidden_modules;     // imports of these (and their submodules)
  std::vector<std::string> hidden_modules;        // the task's own files: reference, expert
  std::vector<std::string> forbidden_calls;       // dotted names, `a.b.*` for a whole subtree
  std::vector<std::string> forbidden_attributes;  // attribute names, on any object
  std::vector<std::string> forbidden_operators;   // "@"
  bool forbid_module_state = true;  // no stores into objects that outlive one call
  bool custom_kernels_required = false;
  // With custom kernels required: the torch names allowed as glue (allocation, dtypes, device
  // queries), and tensor methods that count as computing with PyTorch.
  std::vector<std::string> torch_glue;
  std::vector<std::string> compute_methods;
  // Native candidates: library stems ("cublas" covers libcublas.so.12 and <cublas_v2.h>).
  std::vector<std::string> forbidden_libraries;
  // Why the task's semantics need a host decision inside the call; when set, the runtime audit
  // allows device-to-host copies and host synchronizations there (empty: they are findings).
  std::string host_sync_reason;
};

ImplementationRules default_implementation_rules();

// The defaults with the `rules` mapping of `file` applied: lists under forbidden_* and
// torch_glue add to the defaults, `allow` removes names from them ("module_state" lifts that
// rule), `custom_kernels` is "required" or "optional", `allow_host_sync` is the reason a host
// round trip is allowed. Throws TaskError at the offending line.
ImplementationRules read_implementation_rules(const std::filesystem::path& file);

void to_json(nlohmann::json& j, const ImplementationRules& v);

}  // namespace d2k::task
