#include "eval/worker.h"

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
#include "eval/channel.h"
#include "eval/implementation.h"
#include "eval/native_implementation.h"
#include "eval/python_implementation.h"
#include "eval/tensor_file.h"
#include "eval/worker_job.h"
#include "native/library.h"
#include "python/session.h"
#include "runtime/cuda_context.h"
#include "timing/method_registry.h"
#include "timing/steady_clock_backend.h"
#include "util/hash.h"
#include "util/text.h"

namespace d2k::eval {
namespace {

constexpr size_t kMessageLimit = 16 * 1024;

// A failure the worker reports with its verdict, then stops.
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
  }
}

// A timed call: one call of the implementation on one argument list.
class ImplementationCallTarget : public timing::CallTarget {
 public:
  ImplementationCallTarget(Implementation& implementation, int handle,
                           std::function<void()> restore, bool stateful)
      : implementation_(implementation), handle_(handle), restore_(std::move(restore)),
        stateful_(stateful) {}
  void call() override { implementation_.call(handle_); }
  bool has_state() const override { return stateful_; }
  void restore_state() override { restore_(); }

 private:
  Implementation& implementation_;
  int handle_;
  std::function<void()> restore_;
  bool stateful_;
};

// The device the worker runs on: the CUDA primary context and the harness stream, or nothing.
struct Device {
  std::optional<runtime::CudaContext> context;
  std::optional<runtime::CudaStream> stream;

  explicit Device(bool cuda) {
    if (!cuda) return;
    context.emplace(0);
    stream.emplace();
  }
  void synchronize() const {
    if (context) context->synchronize();
  }
  CUstream harness_stream() const { return stream ? stream->handle() : nullptr; }
};

class Worker {
 public:
  Worker(Channel& channel, WorkerJob job)
      : channel_(channel), job_(std::move(job)), device_(job_.device == "cuda"),
        session_(python::SessionOptions{
            job_.device == "cuda",
            device_.stream ? reinterpret_cast<uintptr_t>(device_.stream->handle()) : 0}) {}

  void run() {
    announce();
    try {
      session_.load_inputs_module(job_.task_dir / "get_inputs.py");
    } catch (const std::exception& error) {
      throw WorkerFailure{"harness_error", "task_inputs", util::bounded(error.what(), kMessageLimit)};
    }
    try {
      implementation_ = load_implementation();
    } catch (const python::LoadError& error) {
      throw WorkerFailure{"runtime_error", "candidate_load", util::tail(error.what(), kMessageLimit)};
    } catch (const native::LoadError& error) {
      throw WorkerFailure{"runtime_error", "candidate_load", util::tail(error.what(), kMessageLimit)};
    }
    if (job_.role == WorkerRole::reference) {
      run_reference();
    } else {
      run_candidate();
    }
    channel_.send({{"event", "done"}});
  }

 private:
  std::unique_ptr<Implementation> load_implementation() {
    if (job_.language == "python") {
      return std::make_unique<PythonImplementation>(session_, job_.implementation);
    }
    return std::make_unique<NativeImplementation>(session_, job_.library, job_.arguments,
                                                  job_.output_specs, device_.context.has_value(),
                                                  device_.harness_stream());
  }

  void announce() {
    nlohmann::json environment = session_.environment();
    if (device_.context) {
      environment["device_name"] = device_.context->device_name();
      environment["driver"] = kernel_driver_version() + " (CUDA " + device_.context->driver_version() + ")";
    }
    channel_.send({{"event", "ready"}, {"environment", environment}});
  }

  int make_arguments(const PlannedTrial& trial) {
    nlohmann::json config = job_.config;
    config["seed"] = trial.seed;
    config["device"] = job_.device;
    try {
      const int handle = session_.make_arguments(config);
      if (session_.argument_count(handle) != job_.arguments.size()) {
        throw std::runtime_error(fmt::format("get_inputs returned {} values; config.json names {}",
                                             session_.argument_count(handle),
                                             job_.arguments.size()));
      }
      device_.synchronize();
      return handle;
    } catch (const std::exception& error) {
      throw WorkerFailure{"harness_error", "task_inputs", util::bounded(error.what(), kMessageLimit)};
    }
  }

  bool is_mutable(size_t index) const {
    const auto& name = job_.arguments[index];
    return std::find(job_.mutable_inputs.begin(), job_.mutable_inputs.end(), name) !=
           job_.mutable_inputs.end();
  }

  // Digest of every argument: tensor bytes, or the repr of a scalar.
  nlohmann::json digest_arguments(int handle) const {
    nlohmann::json digests = nlohmann::json::object();
    for (size_t i = 0; i < job_.arguments.size(); ++i) {
      const auto tensor = session_.argument_tensor(handle, i);
      if (tensor) {
        const auto bytes = python::copy_to_host(*tensor);
        digests[job_.arguments[i]] = util::to_hex(util::hash_bytes(bytes.data(), bytes.size()));
      } else {
        digests[job_.arguments[i]] = "repr:" + session_.argument_repr(handle, i);
      }
    }
    return digests;
  }

  // Writes fresh values into the tensors of `target` (same shapes, from the same get_inputs).
  void overwrite_values(int target, int source) {
    for (size_t i = 0; i < job_.arguments.size(); ++i) {
      const auto to = session_.argument_tensor(target, i);
      const auto from = session_.argument_tensor(source, i);
      if (!to || !from) continue;
      if (to->nbytes() != from->nbytes() || !to->is_contiguous() || !from->is_contiguous()) {
        throw WorkerFailure{"harness_error", "task_inputs",
                            "get_inputs must return contiguous tensors of a fixed size per workload"};
      }
      runtime::copy_same_residency(to->data, from->data, to->nbytes(), to->on_device,
                                   device_.harness_stream());
    }
    device_.synchronize();
  }

  TensorFile dump(const python::TensorInfo& tensor, const std::string& name,
                  const std::string& file_stem) const {
    TensorFile file{name, tensor.dtype, tensor.shape, tensor.on_device,
                    job_.scratch / (file_stem + ".bin")};
    write_bytes(file.path, python::copy_to_host(tensor));
    return file;
  }

  // Calls run(...) on `handle`, then reports outputs, state and input digests for `trial`.
  void checked_call(int handle, const PlannedTrial& trial, const std::string& kind) {
    const nlohmann::json before = digest_arguments(handle);
    channel_.send({{"event", "progress"}, {"phase", "call"}, {"trial", trial.index}});
    call_for_outputs(handle);
    report(handle, trial, kind, before);
  }

  // One call whose outputs are read afterwards: fresh outputs, the call, and its completion.
  void call_for_outputs(int handle) {
    guarded([&] {
      implementation_->reset_outputs();
      implementation_->call(handle);
      device_.synchronize();
    });
  }

  // The last call's outputs. One that is not a plain tensor breaks a rule (invalid); a wrong
  // count or dtype is a wrong answer (incorrect).
  std::vector<python::TensorInfo> call_outputs() const {
    try {
      return implementation_->outputs(job_.outputs.size());
    } catch (const python::OutputError& error) {
      const bool type_rule = error.reason_code() == "output_type";  // a rule, not a value
      throw WorkerFailure{type_rule ? "invalid" : "incorrect", error.reason_code(), error.what()};
    }
  }

  void report(int handle, const PlannedTrial& trial, const std::string& kind,
              const nlohmann::json& digests_before) {
    const std::string role = job_.role == WorkerRole::reference ? "ref" : "cand";
    const std::string stem = fmt::format("{}_t{}_{}", role, trial.index, kind);
    nlohmann::json outputs = nlohmann::json::array();
    const auto tensors = call_outputs();
    for (size_t i = 0; i < tensors.size(); ++i) {
      outputs.push_back(dump(tensors[i], job_.outputs[i], fmt::format("{}_out{}", stem, i)));
    }
    nlohmann::json state = nlohmann::json::array();
    for (size_t i = 0; i < job_.arguments.size(); ++i) {
      if (!is_mutable(i)) continue;
      const auto tensor = session_.argument_tensor(handle, i);
      if (tensor) state.push_back(dump(*tensor, "state:" + job_.arguments[i], fmt::format("{}_state{}", stem, i)));
    }
    channel_.send({{"event", "trial"},
                   {"trial", trial.index},
                   {"seed", trial.seed},
                   {"kind", kind},
                   {"inputs_before", digests_before},
                   {"inputs_after", digest_arguments(handle)},
                   {"outputs", outputs},
                   {"state", state}});
  }

  void run_reference() {
    for (const auto& trial : job_.trials) {
      const int handle = make_arguments(trial);
      try {
        checked_call(handle, trial, trial.kind);
        report_targets(handle, trial);
      } catch (const WorkerFailure& failure) {
        // The reference failing is the task's problem, not a candidate's.
        throw WorkerFailure{"harness_error", "reference_failed", failure.message};
      }
      implementation_->release_outputs();
      session_.release_arguments(handle);
    }
  }

  void run_candidate() {
    const PlannedTrial& after_timing = job_.trials.back();
    int previous = -1;
    int timing_handle = -1;
    for (size_t t = 0; t + 1 < job_.trials.size(); ++t) {
      const PlannedTrial& trial = job_.trials[t];
      int handle = make_arguments(trial);
      if (t == 0) prepare(handle);
      if (trial.kind == "same_buffers" && previous >= 0) {
        overwrite_values(previous, handle);
        session_.release_arguments(handle);
        handle = previous;
      } else if (previous >= 0) {
        session_.release_arguments(previous);
      }
      checked_call(handle, trial, trial.kind);
      previous = handle;
      timing_handle = handle;
    }
    const PlannedTrial& timed = job_.trials[job_.trials.size() - 2];
    draw_samples(timed);
    measure(timing_handle, timed);

    // Fresh values into the very tensors the timed calls used: a cache keyed by pointer, or
    // work skipped after the first calls, returns stale results here.
    const int fresh = make_arguments(after_timing);
    overwrite_values(timing_handle, fresh);
    session_.release_arguments(fresh);
    checked_call(timing_handle, after_timing, after_timing.kind);
    audit_call(timing_handle);
  }

  // The runtime audit's call (docs/protocol.md, "Runtime audit"): one more untimed call, traced.
  // It comes after every checked and timed call because CUPTI, once loaded, stays attached to the
  // process; nothing measured runs under it. Trial 0's values are copied into the timed tensors
  // first, so a cache keyed by the last inputs cannot stand in for the work. The "audit" message
  // holds what ran, or why nothing could be traced. The orchestrator asks for it (audit_call)
  // for every GPU candidate but the task's reference.
  void audit_call(int handle) {
    if (!job_.audit_call || !device_.context) return;
    const int fresh = make_arguments(job_.trials.front());
    overwrite_values(handle, fresh);
    session_.release_arguments(fresh);
    channel_.send({{"event", "progress"}, {"phase", "audit"}});
    record::KernelAudit audited;
    audit::TracerOpening opening = audit::open_cupti_tracer(device_.harness_stream(), 0);
    if (!opening.tracer) {
      audited.unavailable = opening.unavailable;
    } else {
      try {
        implementation_->reset_outputs();
        device_.synchronize();
        implementation_->watch_memory();
        opening.tracer->start();
        guarded([&] {
          implementation_->call(handle);
          device_.synchronize();
        });
        audit::ActivityTrace trace = opening.tracer->stop();
        audited = std::move(trace.audit);
        audited.peak_aux_bytes =
            implementation_->aux_memory_bytes(trace.peak_allocated_bytes, job_.outputs.size());
      } catch (const audit::TracerError& error) {
        audited = record::KernelAudit{};
        audited.unavailable = std::string("the CUPTI tracer failed: ") + error.what();
      }
    }
    channel_.send({{"event", "audit"}, {"audit", audit::fit_message(std::move(audited))}});
  }

  // Distribution check, reference side: the exact target of the trial's sampled output,
  // target_probabilities(*arguments) -> (probabilities, support), both [rows, vocab].
  void report_targets(int handle, const PlannedTrial& trial) {
    if (job_.distribution_output.empty()) return;
    nlohmann::json files = nlohmann::json::array();
    try {
      session_.call_function("target_probabilities", handle);
      device_.synchronize();
      const auto tensors = session_.last_outputs(2);
      const std::string stem = fmt::format("ref_t{}_target", trial.index);
      files.push_back(dump(tensors[0], "target_probabilities", stem + "_probabilities"));
      files.push_back(dump(tensors[1], "target_support", stem + "_support"));
    } catch (const std::exception& error) {
      throw WorkerFailure{"harness_error", "reference_failed",
                          util::tail(std::string("target_probabilities: ") + error.what(),
                                     kMessageLimit)};
    }
    session_.clear_last_result();
    channel_.send({{"event", "targets"}, {"trial", trial.index}, {"files", files}});
  }

  // Distribution check, candidate side: `distribution_draws` untimed calls on the inputs of
  // `trial`, each with its own seed, reported as one [draws, ...] tensor of the sampled output.
  // Every draw gets a fresh argument list from get_inputs (same config, so the same values),
  // because a native candidate binds an argument list's values once.
  void draw_samples(const PlannedTrial& trial) {
    if (job_.distribution_output.empty() || job_.distribution_draws <= 0) return;
    const auto found = std::find(job_.outputs.begin(), job_.outputs.end(), job_.distribution_output);
    const size_t output_index = static_cast<size_t>(found - job_.outputs.begin());
    std::vector<std::byte> samples;
    TensorFile file{job_.distribution_output, "", {}, false,
                    job_.scratch / fmt::format("cand_t{}_draws.bin", trial.index)};
    for (int draw = 0; draw < job_.distribution_draws; ++draw) {
      if (draw % 256 == 0) {
        channel_.send({{"event", "progress"}, {"phase", "draws"}, {"done", draw}});
      }
      const int handle = make_arguments(trial);
      session_.set_integer_argument(handle, static_cast<size_t>(job_.distribution_seed_index),
                                    draw_seed(trial.seed, draw));
      call_for_outputs(handle);
      const auto tensors = call_outputs();
      const python::TensorInfo& tensor = tensors[output_index];
      if (draw == 0) {
        file.dtype = tensor.dtype;
        file.on_device = tensor.on_device;
        file.shape = tensor.shape;
        file.shape.insert(file.shape.begin(), job_.distribution_draws);
      } else if (tensor.dtype != file.dtype ||
                 !std::equal(tensor.shape.begin(), tensor.shape.end(), file.shape.begin() + 1,
                             file.shape.end())) {
        throw WorkerFailure{"incorrect", "output_shape",
                            fmt::format("draw {}: output {} changed its dtype or shape between "
                                        "calls",
                                        draw, job_.distribution_output)};
      }
      const auto bytes = python::copy_to_host(tensor);
      samples.insert(samples.end(), bytes.begin(), bytes.end());
      implementation_->release_outputs();
      session_.release_arguments(handle);
    }
    write_bytes(file.path, samples);
    channel_.send({{"event", "draws"}, {"trial", trial.index}, {"samples", file}});
  }

  // A draw's seed: SplitMix64 of the trial's secret seed and the draw number, below 2^63.
  static int64_t draw_seed(uint64_t trial_seed, int draw) {
    uint64_t z = trial_seed + 0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(draw) + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<int64_t>(z >> 1);
  }

  // Native candidates allocate their outputs and workspace here, before any call.
  void prepare(int handle) {
    std::optional<uint64_t> workspace;
    guarded([&] {
      workspace = implementation_->prepare(handle);
      device_.synchronize();
    });
    if (workspace) channel_.send({{"event", "workspace"}, {"bytes", *workspace}});
  }

  // Times run(...) on the inputs of `trial`, then reports the last timed call's outputs.
  void measure(int handle, const PlannedTrial& trial) {
    // Mutable state is restored from a pristine copy of the trial's inputs before every call.
    std::optional<int> pristine;
    if (!job_.mutable_inputs.empty()) {
      pristine = make_arguments(trial);
      restore(handle, *pristine);
      device_.synchronize();
    }
    const nlohmann::json before = digest_arguments(handle);
    ImplementationCallTarget target(*implementation_, handle, [&] { restore(handle, *pristine); },
                                    pristine.has_value());
    const auto method = timing::MethodRegistry::instance().create(job_.timing_method);
    channel_.send({{"event", "progress"},
                   {"phase", "timing"},
                   {"expected_seconds", job_.timing.min_sample_seconds * (job_.timing.samples + 2)}});
    record::Latency latency;
    guarded([&] {
      if (device_.context) {
        const auto backend = implementation_->cuda_backend(*device_.context, *device_.stream);
        latency = method->measure(target, *backend, job_.timing);
      } else {
        timing::SteadyClockBackend backend;
        latency = method->measure(target, backend, job_.timing);
      }
      device_.synchronize();
    });
    channel_.send({{"event", "latency"}, {"latency", latency}});
    if (pristine) {
      // A graph method's last launch may be a restores-only graph; make the state reported as
      // the last timed call's the state one restored call leaves.
      restore(handle, *pristine);
      guarded([&] {
        implementation_->call(handle);
        device_.synchronize();
      });
    }
    report(handle, trial, "last_timed_call", before);
    if (pristine) session_.release_arguments(*pristine);
  }

  void restore(int handle, int pristine) { overwrite_mutable(handle, pristine); }

  void overwrite_mutable(int target, int source) {
    for (size_t i = 0; i < job_.arguments.size(); ++i) {
      if (!is_mutable(i)) continue;
      const auto to = session_.argument_tensor(target, i);
      const auto from = session_.argument_tensor(source, i);
      if (to && from) {
        runtime::copy_same_residency(to->data, from->data, to->nbytes(), to->on_device,
                                     device_.harness_stream());
      }
    }
  }

  Channel& channel_;
  WorkerJob job_;
  Device device_;
  python::Session session_;
  std::unique_ptr<Implementation> implementation_;
};

}  // namespace

int run_worker(int channel_fd) {
  Channel channel(channel_fd);
  nlohmann::json message;
  if (channel.receive(message, std::chrono::seconds(60)) != Channel::Status::message) return 3;
  channel.set_token(message.value("token", ""));
  try {
    Worker worker(channel, message.get<WorkerJob>());
    worker.run();
  } catch (const WorkerFailure& failure) {
    channel.send({{"event", "failure"},
                  {"verdict", failure.verdict},
                  {"reason_code", failure.reason_code},
                  {"message", failure.message}});
  } catch (const runtime::CudaError& error) {
    channel.send({{"event", "failure"}, {"verdict", "runtime_error"}, {"reason_code", "cuda_error"},
                  {"message", error.what()}});
  } catch (const std::exception& error) {
    channel.send({{"event", "failure"}, {"verdict", "harness_error"}, {"reason_code", "worker"},
                  {"message", util::bounded(error.what(), kMessageLimit)}});
  }
  std::fflush(nullptr);
  // Skip static destructors and interpreter finalization: CUDA and torch teardown at exit is
  // slow and can hang after a device fault.
  _exit(0);
}

}  // namespace d2k::eval
