#include "eval/evaluator.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "eval/runtime_audit.h"
#include "eval/speed_of_light_bound.h"
#include "eval/trial_plan.h"
#include "timing/method_registry.h"
#include "eval/worker_job.h"
#include "eval/worker_process.h"
#include "eval/workload_judge.h"
#include "runtime/cuda_driver.h"
#include "util/hash.h"
#include "util/text.h"
#include "validity/candidate_check.h"

namespace d2k::eval {
namespace {

constexpr size_t kLogTail = 8 * 1024;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string cpu_model() {
  std::ifstream info("/proc/cpuinfo");
  std::string line;
  while (std::getline(info, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "cpu";
}

// A scratch folder that disappears with the workload, tensors and logs included.
class ScratchDir {
 public:
  explicit ScratchDir(const std::filesystem::path& root) {
    std::filesystem::create_directories(root);
    std::string pattern = (root / "d2k-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create scratch in " + root.string());
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;  // owns the folder
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::filesystem::path default_scratch_root() {
  const char* configured = std::getenv("D2K_SCRATCH");
  if (configured != nullptr && *configured != '\0') return configured;
  return std::filesystem::temp_directory_path();
}

void fill_environment(record::Environment& environment, const nlohmann::json& reported) {
  if (!environment.torch.empty()) return;
  environment.torch = reported.value("torch", "");
  environment.triton = reported.value("triton", "");
  environment.cuda = reported.value("cuda", "");
  environment.python = reported.value("python", "");
  environment.driver = reported.value("driver", "");
  if (reported.contains("device_name")) environment.device_name = reported.at("device_name");
}

// Limits for a worker: how long it may go without reporting, and how long in all.
struct Limits {
  double idle_seconds;
  Clock::time_point deadline;
};

enum class Ending { done, failed, crashed, timed_out, workload_timed_out, rejected, cancelled };

// How often a waiting orchestrator looks at its stop token.
constexpr double kStopPollSeconds = 0.25;

// Reads a worker's messages until it finishes, fails, dies or stalls, or `stop` is requested,
// handing each message to `on_message`. A timing phase announces how long it expects to run; the
// idle limit grows by that much while it lasts.
Ending drive(WorkerProcess& worker, const Limits& limits, std::stop_token stop,
             const std::function<void(const nlohmann::json&)>& on_message, std::string& detail) {
  double idle_limit = limits.idle_seconds;
  auto last_message = Clock::now();
  while (true) {
    if (stop.stop_requested()) {
      worker.kill();
      detail = "the evaluation was cancelled";
      return Ending::cancelled;
    }
    const auto now = Clock::now();
    const double left_overall = std::chrono::duration<double>(limits.deadline - now).count();
    const double left_idle =
        idle_limit - std::chrono::duration<double>(now - last_message).count();
    if (left_overall <= 0.0 || left_idle <= 0.0) {
      worker.kill();
      if (left_overall <= left_idle) {
        detail = "the workload exceeded its overall time limit";
        return Ending::workload_timed_out;
      }
      detail = fmt::format("no progress for {:.0f} s (call time limit)", idle_limit);
      return Ending::timed_out;
    }
    const double wait = std::min({left_idle, left_overall, kStopPollSeconds});
    nlohmann::json message;
    const auto status = worker.channel().receive(
        message, std::chrono::milliseconds(static_cast<long long>(std::ceil(wait * 1000))));
    if (status == Channel::Status::timed_out) continue;
    if (status == Channel::Status::closed) return Ending::crashed;
    if (status == Channel::Status::rejected) {
      worker.kill();
      detail = message.value("reason", "");
      return Ending::rejected;
    }
    const std::string event = message.value("event", "");
    last_message = Clock::now();
    idle_limit = limits.idle_seconds;
    if (event == "progress" && message.value("phase", "") == "timing") {
      idle_limit += 3.0 * message.value("expected_seconds", 0.0);
    }
    on_message(message);
    if (event == "done") return Ending::done;
    if (event == "failure") return Ending::failed;
  }
}

// Every workload of a candidate that broke a rule: invalid, with the first finding's reason
// code and all findings, with file and line, in the message.
record::WorkloadResult invalid_by_findings(const std::string& label,
                                           const std::vector<record::Finding>& findings) {
  record::WorkloadResult result;
  result.workload = label;
  result.verdict = record::Verdict::invalid;
  result.reason_code = findings.front().reason_code;
  std::vector<std::string> lines;
  for (const auto& finding : findings) {
    const std::string place =
        finding.line > 0 ? fmt::format("{}:{}", finding.file, finding.line) : finding.file;
    lines.push_back(fmt::format("{}: {} [{}]", place, finding.message, finding.rule));
  }
  result.message = fmt::format("static check: {}", fmt::join(lines, "\n"));
  return result;
}

}  // namespace

task::Language candidate_language(const task::Task& task, const std::filesystem::path& file) {
  const std::optional<task::Language> language = task::language_of_file(file);
  if (!language) {
    throw std::runtime_error(fmt::format(
        "{}: cannot tell its language; a solution is a .py (Python), .cu (CUDA C++) or .cpp "
        "(C++) file",
        file.string()));
  }
  if (!task.evaluation.accepts(*language)) {
    std::vector<std::string> names;
    for (const task::Language accepted : task.evaluation.languages) {
      names.push_back(task::to_string(accepted));
    }
    throw std::runtime_error(fmt::format(
        "task {} does not accept {} candidates ({}); its evaluation.languages are: {}", task.id,
        task::to_string(*language), file.filename().string(), fmt::join(names, ", ")));
  }
  return *language;
}

std::string describe_device(task::Device device) {
  if (device == task::Device::cpu) return cpu_model();
#ifdef D2K_HAVE_CUDA
  const auto& driver = runtime::CudaDriver::get();
  CUdevice handle = 0;
  runtime::check(driver.cuDeviceGet(&handle, 0), "cuDeviceGet");
  char name[256] = {};
  runtime::check(driver.cuDeviceGetName(name, sizeof name - 1, handle), "cuDeviceGetName");
  return name;
#else
  throw runtime::CudaError("this d2k was built without the CUDA toolkit");
#endif
}

Evaluator::Evaluator(const task::Task& task, store::Store* store, EvaluatorOptions options)
    : task_(task), store_(store), options_(std::move(options)), base_seed_(random_base_seed()) {
  implementation_ = options_.kind == task::ImplKind::solution
                        ? std::filesystem::absolute(options_.solution)
                        : task_.implementation_file(options_.kind);
  if (!std::filesystem::exists(implementation_)) {
    throw std::runtime_error("no implementation file " + implementation_.string());
  }
  language_ = candidate_language(task_, implementation_);
  // Fail before any worker starts when the timing method is unknown.
  timing::MethodRegistry::instance().create(timing_method());
  if (options_.worker_binary.empty()) options_.worker_binary = current_executable();
  if (options_.scratch_root.empty()) options_.scratch_root = default_scratch_root();
}

void Evaluator::note(const std::string& line) const {
  if (options_.progress) options_.progress(line);
}

std::string Evaluator::timing_method() const {
  if (options_.timing_method) return *options_.timing_method;
  const auto& spec = task_.evaluation;
  if (options_.kind == task::ImplKind::reference && spec.reference_timing_method) {
    return *spec.reference_timing_method;
  }
  return spec.timing_method;
}

record::EvaluationResult Evaluator::run() {
  record::EvaluationResult result;
  result.created_at = util::utc_now_iso8601();
  result.task_id = task_.id;
  result.impl_kind = task::to_string(options_.kind);
  result.impl_path = implementation_.string();
  result.impl_hash = util::hash_file(implementation_);
  result.device = task::to_string(task_.evaluation.device);
  result.base_seed = base_seed_;
  result.environment.device_name = describe_device(task_.evaluation.device);
  result.environment.d2k_version = D2K_VERSION;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  result.environment.host = host;

  std::optional<native::BuildOutcome> built;
  if (language_ != task::Language::python) {
    built = build(result.environment.device_name);
    result.build = record::Build{built->cached, built->seconds, built->hash, built->command};
    library_ = built->library;
  }

  // The static gate: a candidate that breaks a rule runs no worker (the reference is the task's
  // own definition of the operator and is not checked).
  if (options_.kind != task::ImplKind::reference) {
    result.findings = validity::check_candidate(implementation_, language_, library_, task_.rules);
  }
  // A stored latency stands in only when it was measured the same way.
  const bool cacheable = options_.use_cache && options_.kind != task::ImplKind::solution &&
                         !options_.timing_method;
  for (size_t i = 0; i < task_.workloads.size(); ++i) {
    const auto& workload = task_.workloads[i];
    if (options_.workload && *options_.workload != workload.label) continue;
    if (options_.stop.stop_requested()) throw EvaluationCancelled();
    if (built && !built->ok) {
      record::WorkloadResult failed;
      failed.workload = workload.label;
      failed.verdict = record::Verdict::runtime_error;
      failed.reason_code = "compile_error";
      failed.message = built->diagnostics;
      result.workloads.push_back(std::move(failed));
      continue;
    }
    if (!result.findings.empty()) {
      result.workloads.push_back(invalid_by_findings(workload.label, result.findings));
      continue;
    }
    if (cacheable && store_ != nullptr) {
      auto cached = store_->cached_workload({result.environment.device_name, task_.id,
                                             workload.label, result.impl_kind, result.impl_hash,
                                             record::kProtocolVersion});
      // Only a latency measured the way this task times now stands in.
      if (cached && cached->latency && cached->latency->method == timing_method()) {
        cached->from_cache = true;
        note(fmt::format("[{}/{}] {}: latency reused from the store", i + 1,
                         task_.workloads.size(), workload.label));
        result.workloads.push_back(std::move(*cached));
        continue;
      }
    }
    result.workloads.push_back(evaluate_workload(i, workload, result.environment));
  }
  if (result.workloads.empty() && options_.workload) {
    throw std::runtime_error("task " + task_.id + " has no workload '" + *options_.workload + "'");
  }
  if (store_ != nullptr && task_.work_model) {
    // Recomputed for cached workloads too: the newest ceilings of this device apply.
    const auto ceilings = store_->latest_device_ceilings(result.environment.device_name);
    if (ceilings) attach_speed_of_light(task_, *ceilings, result);
  }
  result.sandbox = sandbox_summary_;
  if (store_ != nullptr) store_->save(result);
  return result;
}

native::BuildOutcome Evaluator::build_only() const {
  if (language_ == task::Language::python) {
    throw std::runtime_error("only native candidates (.cu, .cpp) are built; " +
                             implementation_.filename().string() + " is Python");
  }
  // The device is part of the cache key; without one, the object is keyed as built blind.
  std::string device_name = "no device";
  try {
    device_name = describe_device(task_.evaluation.device);
  } catch (const std::exception&) {
  }
  return build(device_name);
}

native::BuildOutcome Evaluator::build(const std::string& device_name) const {
  const task::NativeBuild& settings = task_.evaluation.native;
  const bool cuda = language_ == task::Language::cuda;
  native::BuildRequest request;
  request.source = implementation_;
  request.toolchain = cuda ? native::nvcc_toolchain() : native::cxx_toolchain();
  request.flags = cuda ? settings.nvcc_flags : settings.cxx_flags;
  // An object runs on the CPU architecture it was built for and, for CUDA, on the GPU whose
  // architecture its flags name (or that -arch=native found).
  utsname host{};
  uname(&host);
  request.target = cuda ? fmt::format("{} {}", host.machine, device_name) : host.machine;
  request.timeout_seconds = settings.compile_timeout_seconds;
  note("build: " + request.toolchain.compiler + " " + implementation_.filename().string());
  const native::BuildOutcome outcome = native::Builder(native::default_cache_dir()).build(request);
  if (outcome.cached) {
    note("build: cached " + outcome.hash);
  } else if (outcome.ok) {
    note(fmt::format("build: compiled in {:.2f} s ({})", outcome.seconds, outcome.hash));
  } else {
    note(fmt::format("build: failed after {:.2f} s", outcome.seconds));
  }
  return outcome;
}

sandbox::Policy Evaluator::candidate_policy(const std::filesystem::path& scratch) const {
  const std::filesystem::path task_dir = std::filesystem::absolute(task_.dir);
  sandbox::Policy policy;
  // What a task shows a candidate is its description, inputs and contract: never the expert,
  // the judge's criteria or the reference's code, unless that is what is being evaluated.
  for (const auto& hidden : {task_dir / "expert", task_dir / "judge_criteria.md",
                             task_dir / "reference.py"}) {
    const auto inside = std::filesystem::absolute(implementation_).lexically_relative(hidden);
    if (inside.empty() || *inside.begin() != "..") continue;
    policy.hidden.push_back(hidden);
  }
  if (!options_.store_path.empty()) policy.hide_database(options_.store_path);
  // Other evaluations' scratch folders share the root; only this one stays visible.
  const auto root = std::filesystem::absolute(options_.scratch_root);
  if (root != root.root_path()) policy.hidden_except_writable.push_back(root);
  policy.writable.push_back(scratch);
  // What the worker itself reads may sit inside the scratch root (tests keep everything there).
  // The worker is this binary: its folder (the build tree, with any libraries found through its
  // RPATH) stays visible even when it lies under the scratch root, as a checkout in /tmp does.
  policy.readable = {std::filesystem::absolute(implementation_).parent_path(), task_dir,
                     std::filesystem::absolute(options_.worker_binary).parent_path()};
  if (!library_.empty()) policy.readable.push_back(std::filesystem::absolute(library_));
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  policy.limits.cpu_seconds =
      static_cast<rlim_t>(std::ceil(task_.evaluation.workload_timeout_seconds * cores));
  policy.limits.file_bytes = rlim_t{16} << 30;  // far above any task's largest tensor file
  policy.limits.processes = 4096;               // threads count: BLAS and CUDA start many
  return policy;
}

// A task with a distribution check: the reference worker reports targets and the candidate
// worker makes the workload's fit-test draws (docs/protocol.md, "What is compared").
static void configure_distribution_check(const task::Task& task, const task::Workload& workload,
                                         WorkerJob& job) {
  const auto& checks = task.evaluation.distribution_checks;
  if (checks.empty()) return;
  const auto& arguments = task.evaluation.arguments;
  job.distribution_output = checks.front().output;
  job.distribution_seed_index = static_cast<int>(
      std::find(arguments.begin(), arguments.end(), checks.front().seed_argument) -
      arguments.begin());
  job.distribution_draws = workload.distribution_draws;
}

record::WorkloadResult Evaluator::evaluate_workload(size_t index, const task::Workload& workload,
                                                    record::Environment& environment) {
  const auto started = Clock::now();
  const auto& spec = task_.evaluation;
  const std::string prefix = fmt::format("[{}/{}] {}", index + 1, task_.workloads.size(), workload.label);
  const TrialPlan plan = make_trial_plan(base_seed_, static_cast<int>(index), spec.correctness_trials);
  ScratchDir scratch(options_.scratch_root);

  WorkerJob job;
  job.task_dir = std::filesystem::absolute(task_.dir);
  job.device = task::to_string(spec.device);
  job.config = task_.fixed_params;
  for (const auto& [key, value] : workload.params.items()) job.config[key] = value;
  job.arguments = spec.arguments;
  job.mutable_inputs = task_.input_rules.mutable_inputs;
  job.outputs = spec.outputs;
  job.library = library_;
  job.timing_method = timing_method();
  job.timing.min_sample_seconds = spec.min_sample_seconds;
  job.timing.samples = spec.timing_samples;
  job.scratch = scratch.path();
  RuntimeAudit runtime_audit = RuntimeAudit::for_workload(task_, workload, options_.kind);
  job.audit_call = runtime_audit.traces();
  configure_distribution_check(task_, workload, job);

  // Trials before timing, the last timed call, and the fresh-values trial after timing.
  WorkloadJudge judge(task_, workload.label, spec.correctness_trials + 2);
  const Limits limits{spec.call_timeout_seconds,
                      started + std::chrono::milliseconds(
                                    static_cast<long long>(spec.workload_timeout_seconds * 1000))};

  auto run_worker = [&](WorkerRole role, const std::function<void(const nlohmann::json&)>& handle) {
    job.role = role;
    job.implementation = role == WorkerRole::reference ? task_.implementation_file(task::ImplKind::reference)
                                                       : implementation_;
    job.language =
        task::to_string(role == WorkerRole::reference ? task::Language::python : language_);
    job.trials = plan.all();
    const std::string name = role == WorkerRole::reference ? "reference" : "candidate";
    std::unique_ptr<WorkerProcess> worker;
    if (role == WorkerRole::candidate && options_.sandbox) {
      // Temporary files and Triton's kernel cache go to the scratch folder, the one place the
      // candidate may write; nothing it writes outlives the workload.
      std::filesystem::create_directories(scratch.path() / "tmp");
      std::filesystem::create_directories(scratch.path() / "triton");
      const sandbox::Policy policy = candidate_policy(scratch.path());
      worker = WorkerProcess::start(options_.worker_binary, scratch.path() / (name + ".log"), &policy,
                                    {{"TMPDIR", (scratch.path() / "tmp").string()},
                                     {"TRITON_CACHE_DIR", (scratch.path() / "triton").string()},
                                     {"TRITON_HOME", (scratch.path() / "triton").string()}});
      if (sandbox_summary_.empty()) sandbox_summary_ = worker->sandbox_report().summary();
    } else {
      worker = WorkerProcess::start(options_.worker_binary, scratch.path() / (name + ".log"));
      if (role == WorkerRole::candidate) sandbox_summary_ = "sandbox disabled (--no-sandbox)";
    }
    worker->channel().set_token(new_channel_token());
    worker->channel().send(job);
    std::string detail;
    const Ending ending = drive(*worker, limits, options_.stop, handle, detail);
    const ExitStatus status = worker->wait();
    if (ending == Ending::cancelled) throw EvaluationCancelled();
    const bool reference = role == WorkerRole::reference;
    if (ending == Ending::timed_out || ending == Ending::workload_timed_out) {
      judge.fail(reference ? record::Verdict::harness_error : record::Verdict::timed_out,
                 reference ? "reference_timeout"
                 : ending == Ending::timed_out ? "call_timeout" : "workload_timeout",
                 detail + "; worker log:\n" + worker->log_tail(kLogTail));
    } else if (ending == Ending::rejected) {
      judge.fail(reference ? record::Verdict::harness_error : record::Verdict::invalid,
                 "channel_forged", detail);
    } else if (ending == Ending::crashed) {
      judge.fail(reference ? record::Verdict::harness_error : record::Verdict::crashed,
                 reference ? "reference_crashed" : "worker_crashed",
                 "the " + name + " worker " + status.describe() +
                     " before reporting a result; worker log:\n" + worker->log_tail(kLogTail));
    }
  };

  note(prefix + ": reference outputs");
  run_worker(WorkerRole::reference, [&](const nlohmann::json& message) {
    const std::string event = message.value("event", "");
    if (event == "ready") fill_environment(environment, message.at("environment"));
    if (event == "trial" && message.at("trial") == 0) {
      // What a native candidate's outputs look like: the reference's, on every trial.
      job.output_specs = message.at("outputs").get<std::vector<TensorFile>>();
      for (auto& output : job.output_specs) output.path.clear();
    }
    if (event == "trial") judge.add_reference_trial(message);
    if (event == "targets") judge.add_reference_targets(message);
    if (event == "failure") {
      judge.fail(record::Verdict::harness_error, "reference_failed", message.value("message", ""));
    }
  });
  if (judge.failed()) return judge.finish(seconds_since(started));

  note(prefix + ": candidate trials");
  std::optional<int64_t> workspace_bytes;
  run_worker(WorkerRole::candidate, [&](const nlohmann::json& message) {
    const std::string event = message.value("event", "");
    if (event == "ready") fill_environment(environment, message.at("environment"));
    if (event == "workspace") workspace_bytes = message.at("bytes").get<int64_t>();
    if (event == "audit") runtime_audit.add_message(message);
    if (event == "trial") judge.add_candidate_trial(message);
    if (event == "draws") judge.add_candidate_draws(message);
    if (event == "progress" && message.value("phase", "") == "draws" && message.value("done", 0) == 0) {
      note(prefix + fmt::format(": {} distribution draws", workload.distribution_draws));
    }
    if (event == "progress" && message.value("phase", "") == "timing") note(prefix + ": timing");
    if (event == "progress" && message.value("phase", "") == "audit") note(prefix + ": audit call");
    if (event == "latency") judge.add_latency(message.at("latency").get<record::Latency>());
    if (event == "failure") {
      judge.fail(record::parse_verdict(message.value("verdict", "harness_error")),
                 message.value("reason_code", ""), message.value("message", ""));
    }
  });
  record::WorkloadResult result = judge.finish(seconds_since(started));
  result.workspace_bytes = workspace_bytes;
  runtime_audit.apply(result);
  return result;
}

}  // namespace d2k::eval
