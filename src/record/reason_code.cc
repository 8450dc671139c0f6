#include "record/reason_code.h"

namespace d2k::record {

const std::vector<ReasonCode>& reason_codes() {
  using enum Verdict;
  static const std::vector<ReasonCode> codes = {
      // The candidate's own failures.
      {"candidate_load", runtime_error,
       "importing the implementation failed, or it defines no callable `run`"},
      {"candidate_exception", runtime_error,
       "`run` raised, or graph capture of it failed; the message holds the traceback's tail"},
      {"cuda_error", runtime_error,
       "a traceback mentions a CUDA error, or a driver call made by d2k failed (for example, "
       "synchronizing after an illegal address)"},
      {"candidate_inputs", runtime_error,
       "`get_inputs` failed in the candidate's worker after it worked in the reference's: the "
       "candidate changed something the inputs depend on"},
      {"compile_error", runtime_error,
       "a native candidate did not compile; the message holds the compiler's output"},
      {"worker_crashed", crashed,
       "the candidate worker's channel closed before it reported an ending"},
      {"call_timeout", timed_out,
       "the candidate worker sent nothing for `call_timeout_seconds` (the idle limit)"},
      {"workload_timeout", timed_out,
       "the workload as a whole exceeded `workload_timeout_seconds`"},
      {"channel_forged", invalid,
       "a line on the result channel was not a JSON object, lacked the job's token, or was not "
       "the message its event names"},
      // Wrong answers.
      {"output_count", incorrect,
       "wrong number of returned values (worker), or of outputs (orchestrator)"},
      {"output_type", invalid, "an output is not exactly `torch.Tensor`"},
      {"output_dtype", incorrect,
       "the output's dtype differs from the reference's (the same for state tensors)"},
      {"output_shape", incorrect, "the output's shape differs from the reference's"},
      {"output_device", incorrect,
       "the output is on the host where the reference's is on the device, or the other way"},
      {"nonfinite", incorrect,
       "NaN/Inf where the reference is finite, or a finite value where the reference has NaN/Inf"},
      {"output_mismatch", incorrect,
       "relative error above the gate (floating point), or any mismatch (integer, bool)"},
      {"state_mismatch", incorrect, "the same, for a mutable input after the call"},
      {"state_count", incorrect, "different number of state tensors"},
      {"sample_outside_support", incorrect,
       "a sampled token lies outside the reference's support (docs/protocol.md, \"Sampled "
       "outputs\")"},
      {"greedy_mismatch", incorrect, "a row with a single allowed token returned another"},
      {"distribution_mismatch", incorrect,
       "the fit test rejected the draws at the task's significance"},
      // Rules broken at run time.
      {"inputs_differ", invalid,
       "the candidate's inputs differ from the reference's for the same seed"},
      {"input_mutated", invalid,
       "a non-mutable input changed during a call, or during timing on any input set"},
      {"untimed_work", invalid,
       "the host waited for the device far longer than the timed intervals last: the call "
       "leaves work outside them (docs/timing.md, \"The timed region\")"},
      // The static gate.
      {"forbidden_module", invalid,
       "static gate: an import of a forbidden module (or `import *` from a package)"},
      {"forbidden_call", invalid,
       "static gate: a forbidden name is used (eval, open, os.system, torch.ops.\\*, a task's "
       "forbidden operator such as torch.matmul, …), through any alias"},
      {"forbidden_attribute", invalid,
       "static gate: a forbidden attribute name on any object (`.as_subclass`, `.__dict__`, a "
       "task's `.softmax`)"},
      {"forbidden_operator", invalid,
       "static gate: `@` (or `operator.matmul`, `.__matmul__`) where the task forbids it"},
      {"dynamic_attribute", invalid,
       "static gate: `getattr`/`setattr`/`delattr` with a name that does not fold to a constant"},
      {"monkey_patch", invalid,
       "static gate: an assignment into (or `setattr` on) another module or something it "
       "defines"},
      {"module_state", invalid,
       "static gate: a store into, or mutating call on, an object that outlives one call"},
      {"tensor_subclass", invalid,
       "static gate: a class derived from `torch.Tensor`, or "
       "`__torch_function__`/`__torch_dispatch__`"},
      {"reference_import", invalid,
       "static gate: an import of the task's `reference` or `expert`"},
      {"forbidden_library", invalid,
       "static gate, native: a forbidden header, `DT_NEEDED` library or undefined symbol"},
      // The static gate and the runtime audit.
      {"torch_compute", invalid,
       "static gate, custom kernels required: a `torch.*` name outside the glue list, or a "
       "tensor compute method; runtime audit: PyTorch compute kernels ran"},
      {"no_custom_kernel", invalid,
       "static gate, custom kernels required: no `@triton.*` function in the candidate's "
       "modules; runtime audit: no kernel of the candidate's own ran"},
      // The runtime audit.
      {"library_compute", invalid,
       "runtime audit: cuBLAS, cuBLASLt or cuDNN kernels ran where the task forbids those "
       "libraries"},
      {"glue_limit", invalid,
       "runtime audit, custom kernels required: PyTorch fills and copies over 10 % of the "
       "call's kernel time"},
      {"side_stream", invalid,
       "runtime audit: a kernel, copy or fill on a stream other than the harness's"},
      {"other_device", invalid, "runtime audit: work on another device"},
      {"host_sync", invalid,
       "runtime audit: a device-to-host copy or a stream, event or context synchronize inside "
       "the call, where the task's `allow_host_sync` does not allow it"},
      {"peak_memory", invalid,
       "runtime audit: device memory beyond inputs and outputs above the task's "
       "`peak_aux_bytes`"},
      {"cached_work", invalid,
       "runtime audit: calls on an input set the timed calls used ran less than a quarter of "
       "the kernel time of a call on fresh inputs"},
      // The task's own failures: never the candidate's, and kept out of its scores.
      {"task_inputs", task_error,
       "`get_inputs.py` failed to load or raised, returned the wrong number of values, or "
       "returned tensors that cannot be refilled in place"},
      {"task_parameter", task_error,
       "a workload passes a parameter that `get_inputs` never reads (a misspelled or stale name)"},
      // d2k's own failures: never the candidate's.
      {"reference_failed", harness_error,
       "the reference worker reported any failure; its own reason code is replaced by this one"},
      {"reference_crashed", harness_error,
       "the reference worker died before reporting an ending"},
      {"reference_timeout", harness_error,
       "the reference worker hit the idle limit or the workload limit"},
      {"reference_missing", harness_error,
       "a candidate trial has no reference trial with the same index"},
      {"harness_error", harness_error, "a tensor file has the wrong size for its dtype and shape"},
      {"incomplete", harness_error,
       "the candidate worker finished without reporting every expected trial, or reported "
       "input sets unpaired"},
      {"no_latency", harness_error, "the candidate worker finished without reporting a latency"},
      {"draws_missing", harness_error,
       "the candidate worker finished without the distribution check's draws"},
      {"distribution_check", harness_error,
       "the draws or the reference's target could not be read or do not fit together"},
      {"sample_too_short", harness_error,
       "a timed sample stayed shorter than `min_sample_seconds` after every allowed resize "
       "(docs/timing.md)"},
      {"protocol", harness_error,
       "a worker received a message it did not expect, or no answer to its audit"},
      {"worker", harness_error,
       "any other exception in a worker (`graph` on a CPU task, …); an output with an "
       "unsupported dtype is `output_dtype`, one DLPack cannot export (e.g. requiring grad) "
       "`output_type`"},
  };
  return codes;
}

const ReasonCode* find_reason_code(std::string_view code) {
  for (const ReasonCode& entry : reason_codes()) {
    if (entry.code == code) return &entry;
  }
  return nullptr;
}

std::string reason_codes_markdown() {
  std::string table = "| reason code | verdict | meaning |\n|---|---|---|\n";
  for (const ReasonCode& entry : reason_codes()) {
    table += "| `" + std::string(entry.code) + "` | " + to_string(entry.verdict) + " | " +
             std::string(entry.meaning) + " |\n";
  }
  return table;
}

}  // namespace d2k::record
