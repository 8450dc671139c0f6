#include "worker/worker.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <regex>

#include <fmt/format.h>

#include "audit/audit_message.h"
#include "audit/cupti_tracer.h"
#include "native/library.h"
#include "protocol/channel.h"
#include "protocol/messages.h"
#include "python/session.h"
#include "timing/input_sets.h"
#include "timing/method_registry.h"
#include "timing/steady_clock_backend.h"
#include "timing/timing_error.h"
#include "util/text.h"
#include "worker/device.h"
#include "worker/implementation.h"
#include "worker/native_implementation.h"
#include "worker/phase_clock.h"
#include "worker/profiled_calls.h"
#include "worker/python_implementation.h"
#include "worker/tensor_dump.h"

namespace d2k::worker {
namespace {

using protocol::PlannedTrial;
using protocol::TensorFile;
using Digests = std::map<std::string, std::string>;
using Clock = std::chrono::steady_clock;

constexpr size_t kMessageLimit = 16 * 1024;
// How long a candidate waits for the orchestrator's answer to its fresh-call audit.
constexpr auto kDecisionTimeout = std::chrono::seconds(120);

// A failure the worker reports with its verdict; the worker then stops.
struct WorkerFailure {
  std::string verdict;
  std::string reason_code;
  std::string message;
};

bool is_cuda_failure(const std::string& text) {
  return text.find("CUDA error") != std::string::npos ||
         text.find("illegal memory access") != std::string::npos ||
         text.find("CUDA_ERROR") != std::string::npos;
}

// "580.159.04" from the NVIDIA kernel module, or "unknown". The first line reads e.g. "NVRM
// version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...": the
// wording before the number differs between the open and proprietary modules, so take the first
// dotted number.
std::string kernel_driver_version() {
  std::ifstream version("/proc/driver/nvidia/version");
  std::string first_line;
  std::getline(version, first_line);
  static const std::regex kDotted(R"(\b\d+\.\d+(\.\d+)?\b)");
  std::smatch match;
  if (std::regex_search(first_line, match, kDotted)) return match.str();
  return "unknown";
}

WorkerFailure call_failure(const std::string& traceback) {
  return {"runtime_error", is_cuda_failure(traceback) ? "cuda_error" : "candidate_exception",
          util::tail(traceback, kMessageLimit)};
}

// Runs `body` (candidate calls), turning what the candidate or the device reports into verdicts.
template <typename Body>
void guarded(Body&& body) {
  try {
    body();
  } catch (const python::CallError& error) {
    throw call_failure(error.what());
  } catch (const native::CallError& error) {
    throw call_failure(error.what());
  } catch (const runtime::CudaError& error) {
    throw WorkerFailure{"runtime_error", "cuda_error", error.what()};
  } catch (const timing::UntimedWork& error) {
    throw WorkerFailure{"invalid", "untimed_work", error.what()};
  } catch (const timing::SampleTooShort& error) {
    throw WorkerFailure{"harness_error", "sample_too_short", error.what()};
  }
}

// SplitMix64 of a trial's seed and a number, below 2^63: the seeds of the extra input sets the
// timed calls rotate over, of the fresh audit call, and of the distribution check's draws.
int64_t derived_seed(uint64_t seed, uint64_t salt) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (salt + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<int64_t>(z >> 1);
}

constexpr uint64_t kAuditSalt = 0xA0D17;
// Calls in the traced batch on the timed input sets (fewer when there are fewer sets).
constexpr size_t kTracedTimedCalls = 8;
constexpr uint64_t kDrawSalt = 0;          // draws use salts 0, 1, 2, ... (see draw_samples)
constexpr uint64_t kInputSetSalt = 1 << 30;

// The timed calls: one call of the implementation on one of the input sets' argument lists.
class RotatingCallTarget : public timing::CallTarget {
 public:
  RotatingCallTarget(Implementation& implementation, const std::vector<int>& handles,
                     std::function<void(int64_t)> restore, size_t outputs, CUstream stream)
      : implementation_(implementation), handles_(handles), restore_(std::move(restore)),
        outputs_(outputs), stream_(stream) {}
  int64_t input_sets() const override { return static_cast<int64_t>(handles_.size()); }
  void call(int64_t set) override { implementation_.call(handles_[static_cast<size_t>(set)]); }
  bool has_state() const override { return static_cast<bool>(restore_); }
  void restore_state(int64_t set) override { restore_(set); }
  void poison_outputs() override { implementation_.poison_outputs(outputs_, stream_); }

 private:
  Implementation& implementation_;
  const std::vector<int>& handles_;
  std::function<void(int64_t)> restore_;
  size_t outputs_;
  CUstream stream_;
};

class Worker {
 public:
  Worker(protocol::Channel& channel, protocol::Setup setup)
      : channel_(channel), setup_(std::move(setup)), device_(setup_.device == "cuda"),
        session_(python::SessionOptions{
            setup_.device == "cuda",
            device_.cuda() ? reinterpret_cast<uintptr_t>(device_.harness_stream()) : 0}) {}

  // Loads the task's inputs module and the implementation, then serves workloads until told to
  // exit. Throws WorkerFailure.
  void run() {
    announce();
    try {
      session_.load_inputs_module(setup_.task_dir / "get_inputs.py");
    } catch (const std::exception& error) {
      throw WorkerFailure{"task_error", "task_inputs", util::bounded(error.what(), kMessageLimit)};
    }
    try {
      implementation_ = load_implementation();
    } catch (const python::LoadError& error) {
      throw WorkerFailure{"runtime_error", "candidate_load", util::tail(error.what(), kMessageLimit)};
    } catch (const native::LoadError& error) {
      throw WorkerFailure{"runtime_error", "candidate_load", util::tail(error.what(), kMessageLimit)};
    }
    while (true) {
      nlohmann::json message;
      if (channel_.receive(message, std::chrono::hours(24)) != protocol::Channel::Status::message) {
        return;
      }
      const std::string event = protocol::event_of(message);
      if (event == protocol::Exit::kEvent) return;
      if (event != protocol::Workload::kEvent) {
        throw WorkerFailure{"harness_error", "protocol", "unexpected message: " + event};
      }
      run_workload(protocol::decode<protocol::Workload>(message));
    }
  }

 private:
  std::unique_ptr<Implementation> load_implementation() {
    if (setup_.language == "python") {
      return std::make_unique<PythonImplementation>(session_, setup_.implementation,
                                                    setup_.import_dir);
    }
    return std::make_unique<NativeImplementation>(session_, setup_.library, setup_.arguments,
                                                  device_.cuda(), device_.harness_stream());
  }

  void announce() {
    protocol::Ready ready;
    ready.environment = session_.environment();
    if (device_.cuda()) {
      ready.environment["device_name"] = device_.context().device_name();
      ready.environment["driver"] =
          kernel_driver_version() + " (CUDA " + device_.context().driver_version() + ")";
    }
    channel_.send(protocol::encode(ready));
  }

  void run_workload(protocol::Workload workload) {
    workload_ = std::move(workload);
    checked_call_seconds_ = 0.0;
    if (setup_.role == protocol::WorkerRole::reference) {
      run_reference();
    } else {
      run_candidate();
    }
    session_.release_cached_device_memory();
    protocol::Done done;
    done.phases = phases_.take();
    done.checked_call_seconds = checked_call_seconds_;
    channel_.send(protocol::encode(done));
  }

  void progress(const std::string& phase, int trial = -1, int done = -1, double expected = 0.0) {
    channel_.send(protocol::encode(protocol::Progress{phase, trial, done, expected}));
  }

  // get_inputs(config) with `seed`; returns the argument list's handle.
  int make_arguments(int64_t seed) {
    auto span = phases_.span("inputs");
    nlohmann::json config = workload_.config;
    config["seed"] = seed;
    config["device"] = setup_.device;
    std::vector<std::string> unread;
    try {
      std::vector<std::string> ignored = workload_.unread_allowed;
      ignored.insert(ignored.end(), {"seed", "device"});
      const int handle = session_.make_arguments(config, ignored, unread);
      if (!unread.empty()) {
        throw WorkerFailure{"task_error", "task_parameter",
                            fmt::format("get_inputs never reads the workload's parameter(s) {}",
                                        fmt::join(unread, ", "))};
      }
      if (session_.argument_count(handle) != setup_.arguments.size()) {
        throw std::runtime_error(fmt::format("get_inputs returned {} values; config.json names {}",
                                             session_.argument_count(handle),
                                             setup_.arguments.size()));
      }
      device_.synchronize();
      return handle;
    } catch (const WorkerFailure&) {
      throw;
    } catch (const std::exception& error) {
      throw WorkerFailure{"task_error", "task_inputs", util::bounded(error.what(), kMessageLimit)};
    }
  }

  void release(int handle) {
    implementation_->forget(handle);
    session_.release_arguments(handle);
  }

  bool is_mutable(size_t index) const {
    const auto& name = setup_.arguments[index];
    return std::find(setup_.mutable_inputs.begin(), setup_.mutable_inputs.end(), name) !=
           setup_.mutable_inputs.end();
  }

  // Digest of every argument: tensor bytes, or the repr of a scalar.
  Digests digest_arguments(int handle) {
    auto span = phases_.span("digests");
    Digests digests;
    for (size_t i = 0; i < setup_.arguments.size(); ++i) {
      const auto tensor = session_.argument_tensor(handle, i);
      digests[setup_.arguments[i]] = tensor ? tensor_digest(*tensor, device_)
                                            : "repr:" + session_.argument_repr(handle, i);
    }
    return digests;
  }

  // Tensor bytes of one argument list, and of the last call's outputs.
  int64_t argument_bytes(int handle) const {
    int64_t bytes = 0;
    for (size_t i = 0; i < setup_.arguments.size(); ++i) {
      if (const auto tensor = session_.argument_tensor(handle, i)) {
        bytes += static_cast<int64_t>(tensor->nbytes());
      }
    }
    return bytes;
  }

  // Writes fresh values into the tensors of `target` (same shapes, from the same get_inputs).
  void overwrite_values(int target, int source) {
    for (size_t i = 0; i < setup_.arguments.size(); ++i) {
      const auto to = session_.argument_tensor(target, i);
      const auto from = session_.argument_tensor(source, i);
      if (!to || !from) continue;
      if (to->nbytes() != from->nbytes() || !to->is_contiguous() || !from->is_contiguous()) {
        throw WorkerFailure{"task_error", "task_inputs",
                            "get_inputs must return contiguous tensors of a fixed size per workload"};
      }
      runtime::copy_same_residency(to->data, from->data, to->nbytes(), to->on_device,
                                   device_.harness_stream());
    }
    device_.synchronize();
  }

  void overwrite_mutable(int target, int source) {
    for (size_t i = 0; i < setup_.arguments.size(); ++i) {
      if (!is_mutable(i)) continue;
      const auto to = session_.argument_tensor(target, i);
      const auto from = session_.argument_tensor(source, i);
      if (to && from) {
        runtime::copy_same_residency(to->data, from->data, to->nbytes(), to->on_device,
                                     device_.harness_stream());
      }
    }
  }

  TensorFile dump(const python::TensorInfo& tensor, const std::string& name,
                  const std::string& file_stem) {
    auto span = phases_.span("outputs");
    TensorFile file{name, tensor.dtype, tensor.shape, tensor.on_device,
                    setup_.scratch / (file_stem + ".bin")};
    write_tensor(tensor, file.path);
    return file;
  }

  // One call whose outputs are read afterwards: fresh outputs, the call, and its completion.
  void call_for_outputs(int handle) {
    auto span = phases_.span("calls");
    const auto start = Clock::now();
    guarded([&] {
      implementation_->reset_outputs();
      implementation_->call(handle);
      device_.synchronize();
    });
    checked_call_seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
  }

  // Calls run(...) on `handle`, then reports outputs, state and input digests for `trial`.
  void checked_call(int handle, const PlannedTrial& trial, const std::string& kind) {
    Digests before = digest_arguments(handle);
    progress("call", trial.index);
    call_for_outputs(handle);
    report(handle, trial, kind, std::move(before));
  }

  // The last call's outputs. One that is not a plain tensor breaks a rule (invalid); a wrong
  // count or dtype is a wrong answer (incorrect).
  std::vector<python::TensorInfo> call_outputs() const {
    try {
      return implementation_->outputs(setup_.outputs.size());
    } catch (const python::OutputError& error) {
      const bool type_rule = error.reason_code() == "output_type";  // a rule, not a value
      throw WorkerFailure{type_rule ? "invalid" : "incorrect", error.reason_code(), error.what()};
    }
  }

  void report(int handle, const PlannedTrial& trial, const std::string& kind, Digests before) {
    const std::string role = setup_.role == protocol::WorkerRole::reference ? "ref" : "cand";
    const std::string stem = fmt::format("{}_w{}_t{}_{}", role, workload_.index, trial.index, kind);
    protocol::Trial message;
    message.trial = trial.index;
    message.seed = trial.seed;
    message.kind = kind;
    message.inputs_before = std::move(before);
    const auto tensors = call_outputs();
    for (size_t i = 0; i < tensors.size(); ++i) {
      message.outputs.push_back(dump(tensors[i], setup_.outputs[i], fmt::format("{}_out{}", stem, i)));
    }
    for (size_t i = 0; i < setup_.arguments.size(); ++i) {
      if (!is_mutable(i)) continue;
      if (const auto tensor = session_.argument_tensor(handle, i)) {
        message.state.push_back(
            dump(*tensor, "state:" + setup_.arguments[i], fmt::format("{}_state{}", stem, i)));
      }
    }
    message.inputs_after = digest_arguments(handle);
    channel_.send(protocol::encode(message));
  }

  void run_reference() {
    for (const auto& trial : workload_.trials) {
      const int handle = make_arguments(static_cast<int64_t>(trial.seed));
      try {
        checked_call(handle, trial, trial.kind);
        report_targets(handle, trial);
      } catch (const WorkerFailure& failure) {
        // The reference failing is the task's problem, not a candidate's.
        throw WorkerFailure{"harness_error", "reference_failed", failure.message};
      }
      implementation_->release_outputs();
      release(handle);
    }
  }

  // The trials before timing (every trial, in quick mode), the draws, the audit call, the timing
  // and the trial after it.
  void run_candidate() {
    const auto& trials = workload_.trials;
    const size_t before_timing = workload_.time_calls ? trials.size() - 1 : trials.size();
    int previous = -1;
    for (size_t t = 0; t < before_timing; ++t) {
      const PlannedTrial& trial = trials[t];
      int handle = make_arguments(static_cast<int64_t>(trial.seed));
      if (t == 0) prepare(handle);
      if (trial.kind == "same_buffers" && previous >= 0) {
        overwrite_values(previous, handle);
        release(handle);
        handle = previous;
      } else if (previous >= 0) {
        release(previous);
      }
      checked_call(handle, trial, trial.kind);
      previous = handle;
    }
    const int timing_handle = previous;
    const PlannedTrial& timed = trials[before_timing - 1];
    draw_samples(timed);
    if (!workload_.time_calls) {
      if (workload_.profile_calls > 0) {
        progress("profile", timed.index);
        guarded([&] {
          make_profiled_calls(*implementation_, timing_handle, workload_.label,
                              workload_.profile_calls, device_);
        });
      }
      implementation_->release_outputs();
      release(timing_handle);
      return;
    }
    if (!audit_fresh_call(timed)) {
      release(timing_handle);
      return;
    }
    measure(timing_handle, timed);

    // Fresh values into the very tensors the timed calls used: a cache keyed by pointer, or
    // work skipped after the first calls, returns stale results here.
    const PlannedTrial& after_timing = trials.back();
    const int fresh = make_arguments(static_cast<int64_t>(after_timing.seed));
    overwrite_values(timing_handle, fresh);
    release(fresh);
    checked_call(timing_handle, after_timing, after_timing.kind);
    implementation_->release_outputs();
    release(timing_handle);
  }

  // Native candidates allocate their outputs and workspace here, once per workload.
  void prepare(int handle) {
    std::optional<uint64_t> workspace;
    guarded([&] {
      workspace = implementation_->prepare(handle, workload_.output_specs);
      device_.synchronize();
    });
    if (workspace) channel_.send(protocol::encode(protocol::Workspace{*workspace}));
  }

  // Traced calls (docs/protocol.md, "Runtime audit"), one on each of `handles`, back to back as
  // the timing loop makes them: what they launched, copied and synchronized, and the memory they
  // held. CUPTI stays attached once loaded, so the timed calls after the first traced call run
  // with it loaded but not recording.
  record::KernelAudit traced_calls(const std::vector<int>& handles,
                                   const std::function<void(size_t)>& before_call = nullptr) {
    auto span = phases_.span("audit");
    record::KernelAudit audited;
    audit::TracerOpening opening = audit::open_cupti_tracer(device_.harness_stream(), 0);
    if (!opening.tracer) {
      audited.unavailable = opening.unavailable;
      return audited;
    }
    try {
      implementation_->reset_outputs();
      device_.synchronize();
      implementation_->watch_memory();
      opening.tracer->start();
      guarded([&] {
        for (size_t i = 0; i < handles.size(); ++i) {
          if (before_call) before_call(i);
          implementation_->call(handles[i]);
        }
        // What the calls synchronized themselves counts; the harness's own wait below does not.
        opening.tracer->call_returned();
        device_.synchronize();
      });
      audit::ActivityTrace trace = opening.tracer->stop();
      audited = std::move(trace.audit);
      audited.calls = static_cast<uint32_t>(handles.size());
      audited.peak_aux_bytes =
          implementation_->aux_memory_bytes(trace.peak_allocated_bytes, setup_.outputs.size());
    } catch (const audit::TracerError& error) {
      audited = record::KernelAudit{};
      audited.unavailable = std::string("the CUPTI tracer failed: ") + error.what();
    }
    return audited;
  }

  // The audit before timing: one traced call on inputs no call has seen, reported; the
  // orchestrator answers whether the calls are timed at all. Returns that answer.
  bool audit_fresh_call(const PlannedTrial& timed) {
    if (!setup_.audit_calls || !device_.cuda()) return true;
    progress("audit");
    const int handle = make_arguments(derived_seed(timed.seed, kAuditSalt));
    protocol::Audit audit{"fresh", traced_calls({handle})};
    implementation_->release_outputs();
    release(handle);
    channel_.send(protocol::encode(audit));
    nlohmann::json answer;
    if (channel_.receive(answer, kDecisionTimeout) != protocol::Channel::Status::message ||
        protocol::event_of(answer) != protocol::AuditDecision::kEvent) {
      throw WorkerFailure{"harness_error", "protocol", "no answer to the audit"};
    }
    return protocol::decode<protocol::AuditDecision>(answer).proceed;
  }

  // Distribution check, reference side: the exact target of the trial's sampled output,
  // target_probabilities(*arguments) -> (probabilities, support), both [rows, vocab].
  void report_targets(int handle, const PlannedTrial& trial) {
    if (workload_.distribution_output.empty()) return;
    protocol::Targets targets{trial.index, {}};
    try {
      session_.call_function("target_probabilities", handle);
      device_.synchronize();
      const auto tensors = session_.last_outputs(2);
      const std::string stem = fmt::format("ref_w{}_t{}_target", workload_.index, trial.index);
      targets.files.push_back(dump(tensors[0], "target_probabilities", stem + "_probabilities"));
      targets.files.push_back(dump(tensors[1], "target_support", stem + "_support"));
    } catch (const std::exception& error) {
      throw WorkerFailure{"harness_error", "reference_failed",
                          util::tail(std::string("target_probabilities: ") + error.what(),
                                     kMessageLimit)};
    }
    session_.clear_last_result();
    channel_.send(protocol::encode(targets));
  }

  // Distribution check, candidate side: `distribution_draws` untimed calls on the inputs of
  // `trial`, each with its own seed, reported as one [draws, ...] tensor of the sampled output.
  // Every draw gets a fresh argument list from get_inputs (same config, so the same values),
  // because a native candidate binds an argument list's values once.
  void draw_samples(const PlannedTrial& trial) {
    if (workload_.distribution_output.empty() || workload_.distribution_draws <= 0) return;
    auto span = phases_.span("draws");
    const auto found = std::find(setup_.outputs.begin(), setup_.outputs.end(),
                                 workload_.distribution_output);
    const size_t output_index = static_cast<size_t>(found - setup_.outputs.begin());
    std::vector<std::byte> samples;
    TensorFile file{workload_.distribution_output, "", {}, false,
                    setup_.scratch / fmt::format("cand_w{}_t{}_draws.bin", workload_.index,
                                                 trial.index)};
    for (int draw = 0; draw < workload_.distribution_draws; ++draw) {
      if (draw % 256 == 0) progress("draws", -1, draw);
      const int handle = make_arguments(static_cast<int64_t>(trial.seed));
      session_.set_integer_argument(handle, static_cast<size_t>(workload_.distribution_seed_index),
                                    derived_seed(trial.seed, kDrawSalt + static_cast<uint64_t>(draw)));
      call_for_outputs(handle);
      const auto tensors = call_outputs();
      const python::TensorInfo& tensor = tensors[output_index];
      if (draw == 0) {
        file.dtype = tensor.dtype;
        file.on_device = tensor.on_device;
        file.shape = tensor.shape;
        file.shape.insert(file.shape.begin(), workload_.distribution_draws);
      } else if (tensor.dtype != file.dtype ||
                 !std::equal(tensor.shape.begin(), tensor.shape.end(), file.shape.begin() + 1,
                             file.shape.end())) {
        throw WorkerFailure{"incorrect", "output_shape",
                            fmt::format("draw {}: output {} changed its dtype or shape between "
                                        "calls",
                                        draw, workload_.distribution_output)};
      }
      const auto bytes = python::copy_to_host(tensor);
      samples.insert(samples.end(), bytes.begin(), bytes.end());
      implementation_->release_outputs();
      release(handle);
    }
    protocol::write_bytes(file.path, samples);
    channel_.send(protocol::encode(protocol::Draws{trial.index, file}));
  }

  // The argument lists the timed calls rotate over: `first` (the timing trial's own, set 0),
  // then as many more from get_inputs with derived seeds as the cache policy asks for.
  std::vector<int> make_input_sets(int first, const PlannedTrial& trial,
                                   timing::InputSetPlan& plan) {
    timing::InputSetNeeds needs;
    needs.cache_policy = setup_.cache_policy;
    needs.set_bytes = argument_bytes(first);
    for (const TensorFile& output : workload_.output_specs) {
      needs.output_bytes += output.numel() * static_cast<int64_t>(protocol::dtype_size(output.dtype));
    }
    needs.l2_bytes = device_.l2_bytes();
    needs.peak_aux_bytes = workload_.peak_aux_bytes;
    needs.memory_budget = device_.input_set_budget();
    // A stateful set also needs its pristine copy.
    needs.bytes_per_set = needs.set_bytes * (setup_.mutable_inputs.empty() ? 1 : 2);
    plan = timing::plan_input_sets(needs);
    std::vector<int> handles{first};
    for (int64_t set = 1; set < plan.sets; ++set) {
      handles.push_back(make_arguments(derived_seed(trial.seed, kInputSetSalt + static_cast<uint64_t>(set))));
    }
    return handles;
  }

  // Times run(...) rotating over the timing trial's inputs and the extra input sets, reports the
  // last timed call's outputs, traces one more call on a set the timed calls used, and reports
  // the latency with every set's digests before and after.
  void measure(int timing_handle, const PlannedTrial& trial) {
    progress("inputs");
    timing::InputSetPlan plan;
    std::vector<int> sets = make_input_sets(timing_handle, trial, plan);
    // Mutable state is restored from a pristine copy of each set before every call.
    std::vector<int> pristine;
    const bool stateful = !setup_.mutable_inputs.empty();
    if (stateful) {
      pristine.push_back(make_arguments(static_cast<int64_t>(trial.seed)));
      for (size_t set = 1; set < sets.size(); ++set) {
        pristine.push_back(make_arguments(derived_seed(trial.seed, kInputSetSalt + set)));
      }
      for (size_t set = 0; set < sets.size(); ++set) overwrite_mutable(sets[set], pristine[set]);
      device_.synchronize();
    }
    protocol::TimingResult result;
    for (const int handle : sets) result.sets_before.push_back(digest_arguments(handle));

    const auto restore = [&](int64_t set) {
      overwrite_mutable(sets[static_cast<size_t>(set)], pristine[static_cast<size_t>(set)]);
    };
    RotatingCallTarget target(*implementation_, sets,
                              stateful ? std::function<void(int64_t)>(restore) : nullptr,
                              setup_.outputs.size(), device_.harness_stream());
    const auto method = timing::MethodRegistry::instance().create(setup_.timing_method);
    const auto& settings = setup_.timing;
    const double budget = settings.min_sample_seconds * (settings.samples + 4) *
                              (1 + settings.max_held_back_retakes) +
                          (settings.stopping == "noise" ? settings.max_sampling_seconds : 0.0);
    progress("timing", -1, -1, budget);
    {
      auto span = phases_.span("timing");
      guarded([&] {
        if (device_.cuda()) {
          const auto backend = implementation_->cuda_backend(device_);
          result.latency = method->measure(target, *backend, settings);
        } else {
          timing::SteadyClockBackend backend;
          result.latency = method->measure(target, backend, settings);
        }
        device_.synchronize();
      });
    }
    result.latency.cache_policy = setup_.cache_policy;
    result.latency.input_sets = static_cast<int64_t>(sets.size());
    result.latency.input_set_bytes = argument_bytes(timing_handle);
    result.latency.l2_bytes = device_.l2_bytes();
    result.latency.input_sets_why = plan.why;

    if (stateful) {
      // A graph method's last launch may be a restores-only graph; make the state reported as
      // the last timed call's the state one restored call of set 0 leaves.
      restore(0);
      guarded([&] {
        implementation_->call(timing_handle);
        device_.synchronize();
      });
    }
    report(timing_handle, trial, "last_timed_call", result.sets_before.front());
    if (setup_.audit_calls && device_.cuda()) {
      // Back-to-back calls on sets the timed calls came back to again and again, made as the
      // timing loop makes them: a cache of answers would hit here, and the calls cannot be told
      // from timed ones by their spacing.
      std::vector<int> traced;
      for (size_t i = 0; i < std::min(sets.size(), kTracedTimedCalls); ++i) {
        traced.push_back(sets[(i + 1) % sets.size()]);
      }
      const auto restore_before = [&](size_t i) {
        if (stateful) restore(static_cast<int64_t>((i + 1) % sets.size()));
      };
      channel_.send(protocol::encode(protocol::Audit{"timed_set", traced_calls(traced, restore_before)}));
    }
    for (const int handle : sets) result.sets_after.push_back(digest_arguments(handle));
    channel_.send(protocol::encode(result));
    for (size_t set = 1; set < sets.size(); ++set) release(sets[set]);
    for (const int handle : pristine) release(handle);
  }

  protocol::Channel& channel_;
  protocol::Setup setup_;
  Device device_;
  python::Session session_;
  std::unique_ptr<Implementation> implementation_;
  protocol::Workload workload_;
  PhaseClock phases_;
  double checked_call_seconds_ = 0.0;
};

}  // namespace

int run_worker(int channel_fd) {
  protocol::Channel channel(channel_fd);
  nlohmann::json message;
  if (channel.receive(message, std::chrono::seconds(60)) != protocol::Channel::Status::message) {
    return 3;
  }
  channel.set_token(message.value("token", ""));
  const auto fail = [&](std::string verdict, std::string reason, std::string text) {
    channel.send(protocol::encode(protocol::Failure{std::move(verdict), std::move(reason),
                                                    util::bounded(text, kMessageLimit)}));
  };
  try {
    Worker worker(channel, protocol::decode<protocol::Setup>(message));
    worker.run();
  } catch (const WorkerFailure& failure) {
    fail(failure.verdict, failure.reason_code, failure.message);
  } catch (const runtime::CudaError& error) {
    fail("runtime_error", "cuda_error", error.what());
  } catch (const std::exception& error) {
    fail("harness_error", "worker", error.what());
  }
  std::fflush(nullptr);
  // Skip static destructors and interpreter finalization: CUDA and torch teardown at exit is
  // slow and can hang after a device fault.
  _exit(0);
}

}  // namespace d2k::worker
