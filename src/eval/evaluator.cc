#include "eval/evaluator.h"

#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <numeric>
#include <thread>

#include <fmt/format.h>

#include "eval/runtime_audit.h"
#include "eval/speed_of_light_bound.h"
#include "eval/trial_plan.h"
#include "eval/worker_process.h"
#include "eval/worker_session.h"
#include "eval/workload_judge.h"
#include "runtime/cuda_driver.h"
#include "sandbox/system_view.h"
#include "task/input_parameters.h"
#include "store/unsaved_record.h"
#include "timing/method_registry.h"
#include "util/hash.h"
#include "util/text.h"
#include "validity/candidate_check.h"
#include "util/temp_dir.h"

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

// How much longer than `call_timeout_seconds` an anchor's first call of a workload may take:
// torch.compile compiles for the workload's shapes first, which takes minutes for a large
// graph. The workload's own limit still bounds it.
constexpr double kAnchorCompileSeconds = 480.0;

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

// A task with a distribution check: the reference worker reports targets and the candidate
// worker makes the workload's fit-test draws (docs/protocol.md, "What is compared").
void configure_distribution_check(const task::Task& task, const task::Workload& workload,
                                  protocol::Workload& message) {
  const auto& checks = task.evaluation.distribution_checks;
  if (checks.empty()) return;
  const auto& arguments = task.evaluation.arguments;
  message.distribution_output = checks.front().output;
  message.distribution_seed_index = static_cast<int>(
      std::find(arguments.begin(), arguments.end(), checks.front().seed_argument) -
      arguments.begin());
  message.distribution_draws = workload.distribution_draws;
}

// Adds what a worker reported it spent per phase to the workload's breakdown.
void add_phases(std::map<std::string, double>& phases, const protocol::Done& done) {
  for (const auto& [phase, seconds] : done.phases) phases[phase] += seconds;
}

}  // namespace

task::ImplementationRules anchor_rules() {
  task::ImplementationRules rules = task::default_implementation_rules();
  rules.forbid_module_state = false;
  std::erase(rules.hidden_modules, "reference");
  return rules;
}

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

// The evaluation's two workers and the scratch folder they write to. The candidate sees only its
// own subfolder, so it never meets a reference output, of this workload or the next.
// The scratch folder disappears with the evaluation, tensors and logs included; one left by a
// killed run is removed by the next.
struct Evaluator::Workers {
  util::TempDir scratch;
  std::unique_ptr<WorkerSession> reference;
  std::unique_ptr<WorkerSession> candidate;

  explicit Workers(const std::filesystem::path& root)
      : scratch("d2k-", root, util::TempDir::Claim::locked) {
    for (const char* folder : {"reference", "candidate", "candidate/tmp", "candidate/triton"}) {
      std::filesystem::create_directories(scratch.path() / folder);
    }
  }
  ~Workers() {
    if (candidate) candidate->close();
    if (reference) reference->close();
  }
};

Evaluator::Evaluator(const task::Task& task, store::Store* store, EvaluatorOptions options)
    : task_(task), store_(store), options_(std::move(options)),
      base_seed_(options_.base_seed ? *options_.base_seed : random_base_seed()) {
  if (options_.kind == task::ImplKind::solution) {
    implementation_ = std::filesystem::absolute(options_.solution);
  } else if (options_.kind == task::ImplKind::anchor) {
    implementation_ = task_.anchor_file(options_.anchor);
  } else {
    implementation_ = task_.implementation_file(options_.kind);
  }
  if (!std::filesystem::exists(implementation_)) {
    throw std::runtime_error("no implementation file " + implementation_.string());
  }
  language_ = candidate_language(task_, implementation_);
  // Fail before any worker starts when a timing option is unknown.
  timing::MethodRegistry::instance().create(timing_method());
  if (const std::string policy = cache_policy(); policy != "cold" && policy != "hot") {
    throw std::runtime_error("unknown cache policy '" + policy + "' (known: cold, hot)");
  }
  if (options_.stopping && *options_.stopping != "fixed" && *options_.stopping != "noise") {
    throw std::runtime_error("unknown stopping rule '" + *options_.stopping +
                             "' (known: fixed, noise)");
  }
  if (options_.quick && task_.quick_workloads.empty()) {
    throw std::runtime_error("task " + task_.id + " declares no quick_workloads for --quick");
  }
  if (options_.worker_binary.empty()) options_.worker_binary = current_executable();
  if (options_.scratch_root.empty()) options_.scratch_root = default_scratch_root();
}

void Evaluator::note(const std::string& line) const {
  if (options_.progress) options_.progress(line);
}

std::string Evaluator::timing_method() const {
  return options_.timing_method ? *options_.timing_method : task_.evaluation.timing_method;
}

bool Evaluator::outputs_compared() const {
  const auto& listed = task_.evaluation.timing_only_anchors;
  return options_.kind != task::ImplKind::anchor ||
         std::find(listed.begin(), listed.end(), options_.anchor) == listed.end();
}

std::string Evaluator::cache_policy() const {
  return options_.cache_policy ? *options_.cache_policy : task_.evaluation.cache_policy;
}

record::EvaluationResult Evaluator::run() {
  record::EvaluationResult result;
  result.created_at = util::utc_now_iso8601();
  result.task_id = task_.id;
  result.impl_kind = task::to_string(options_.kind);
  if (options_.kind == task::ImplKind::anchor) result.anchor = options_.anchor;
  result.outputs_compared = outputs_compared();
  result.impl_path = implementation_.string();
  result.impl_hash = util::hash_file(implementation_);
  result.mode = options_.quick ? "quick" : "full";
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
    result.findings = validity::check_candidate(
        implementation_, language_, library_,
        options_.kind == task::ImplKind::anchor ? anchor_rules() : task_.rules);
  }
  // A stored latency stands in only when it was measured the same way.
  const bool cacheable = options_.use_cache && !options_.quick && options_.profile_calls == 0 &&
                         options_.kind != task::ImplKind::solution && !options_.timing_method &&
                         !options_.cache_policy && !options_.stopping && !options_.base_seed;
  const auto& workloads = options_.quick ? task_.quick_workloads : task_.workloads;
  std::unique_ptr<Workers> workers;
  for (size_t i = 0; i < workloads.size(); ++i) {
    const auto& workload = workloads[i];
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
      auto cached = store_->evaluations().cached_workload({result.environment.device_name, task_.id,
                                             workload.label, result.impl_kind, result.impl_hash,
                                             record::kProtocolVersion});
      // Only a latency measured the way this task times now stands in.
      if (cached && cached->latency && cached->latency->method == timing_method() &&
          cached->latency->cache_policy == cache_policy()) {
        cached->from_cache = true;
        note(fmt::format("[{}/{}] {}: latency reused from the store", i + 1, workloads.size(),
                         workload.label));
        result.workloads.push_back(std::move(*cached));
        continue;
      }
    }
    if (!workers) workers = std::make_unique<Workers>(options_.scratch_root);
    result.workloads.push_back(evaluate_workload(i, workload, *workers, result.environment));
  }
  if (result.workloads.empty() && options_.workload) {
    throw std::runtime_error("task " + task_.id + " has no workload '" + *options_.workload + "'");
  }
  workers.reset();
  if (store_ != nullptr && task_.work_model && !options_.quick) {
    // Recomputed for cached workloads too: the newest ceilings of this device apply.
    const auto ceilings = store_->ceilings().latest(result.environment.device_name);
    if (ceilings) attach_speed_of_light(task_, *ceilings, result);
  }
  result.sandbox = sandbox_summary_;
  if (store_ != nullptr) save(result);
  return result;
}

void Evaluator::save(record::EvaluationResult& result) {
  try {
    store_->evaluations().save(result);
  } catch (const store::StoreError& error) {
    // The work is done; the record must not be lost with the store.
    unsaved_record_ = store::write_unsaved_record(store_->path(), options_.scratch_root,
                                                  "evaluation", nlohmann::json(result));
    note(fmt::format("store: {}", error.what()));
  }
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
  std::vector<std::filesystem::path> hidden_paths{task_dir / "expert", task_dir / "anchors",
                                                  task_dir / "judge_criteria.md"};
  // An anchor compiles the reference; everything else is timed without seeing it.
  if (options_.kind != task::ImplKind::anchor) hidden_paths.push_back(task_dir / "reference.py");
  for (const auto& hidden : hidden_paths) {
    const auto inside = std::filesystem::absolute(implementation_).lexically_relative(hidden);
    if (inside.empty() || *inside.begin() != "..") continue;
    policy.hidden.push_back(hidden);
  }
  if (!options_.store_path.empty()) policy.hide_database(options_.store_path);
  policy.hide_repositories(task_dir);
  policy.hide_repositories(std::filesystem::absolute(implementation_).parent_path());
  policy.minimal_root = sandbox::minimal_root_from(sandbox::host_facts());
  policy.minimal_root->tmp = scratch / "tmp";
  // Other evaluations' scratch folders share the root, and the reference's outputs sit beside
  // the candidate's folder; only the candidate's own folder stays visible.
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
  // One worker serves every workload, so its CPU time may add up over all of them.
  const auto& workloads = options_.quick ? task_.quick_workloads : task_.workloads;
  policy.limits.cpu_seconds = static_cast<rlim_t>(
      std::ceil(task_.evaluation.workload_timeout_seconds * cores * workloads.size()));
  policy.limits.file_bytes = rlim_t{16} << 30;  // far above any task's largest tensor file
  policy.limits.processes = 4096;               // threads count: BLAS and CUDA start many
  // Half the machine: the reference worker and d2k itself keep room beside the candidate.
  policy.limits.memory_bytes =
      static_cast<rlim_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) / 2;
  return policy;
}

protocol::Setup Evaluator::worker_setup(protocol::WorkerRole role,
                                        const std::filesystem::path& scratch) const {
  const bool reference = role == protocol::WorkerRole::reference;
  const auto& spec = task_.evaluation;
  protocol::Setup setup;
  setup.role = role;
  setup.task_dir = std::filesystem::absolute(task_.dir);
  setup.implementation =
      reference ? task_.implementation_file(task::ImplKind::reference) : implementation_;
  if (!reference && options_.kind == task::ImplKind::anchor) setup.import_dir = setup.task_dir;
  setup.language = task::to_string(reference ? task::Language::python : language_);
  setup.library = reference ? std::filesystem::path() : library_;
  setup.device = task::to_string(spec.device);
  setup.arguments = spec.arguments;
  setup.mutable_inputs = task_.input_rules.mutable_inputs;
  setup.outputs = spec.outputs;
  setup.timing_method = timing_method();
  setup.timing.min_sample_seconds = spec.min_sample_seconds;
  setup.timing.samples = spec.timing_samples;
  setup.timing.stopping = options_.stopping ? *options_.stopping : spec.stopping;
  setup.cache_policy = cache_policy();
  setup.scratch = scratch;
  // The reference defines the operator and is not audited; a CPU task has no device to trace.
  setup.audit_calls = !reference && options_.kind != task::ImplKind::reference &&
                      options_.kind != task::ImplKind::anchor && options_.profile_calls == 0 &&
                      spec.device == task::Device::cuda;
  return setup;
}

void Evaluator::start_workers(Workers& workers) {
  if (!workers.reference) {
    const auto scratch = workers.scratch.path() / "reference";
    workers.reference = std::make_unique<WorkerSession>(
        "reference", worker_setup(protocol::WorkerRole::reference, scratch), [this, &workers] {
          return WorkerProcess::start(options_.worker_binary,
                                      workers.scratch.path() / "reference.log");
        });
  }
  if (!workers.candidate) {
    const auto scratch = workers.scratch.path() / "candidate";
    workers.candidate = std::make_unique<WorkerSession>(
        "candidate", worker_setup(protocol::WorkerRole::candidate, scratch),
        [this, scratch, &workers]() -> std::unique_ptr<WorkerProcess> {
          const auto log = workers.scratch.path() / "candidate.log";
          // Temporary files and Triton's kernel cache go to the scratch folder, the one place
          // the candidate may write, sandboxed or not; nothing it writes outlives the evaluation.
          const std::vector<std::pair<std::string, std::string>> environment = {
              {"TMPDIR", (scratch / "tmp").string()},
              {"HOME", scratch.string()},
              {"TRITON_CACHE_DIR", (scratch / "triton").string()},
              {"TRITON_HOME", (scratch / "triton").string()}};
          if (!options_.candidate_launcher.empty()) {
            sandbox_summary_ = "sandbox disabled (profiling)";
            return WorkerProcess::start(options_.worker_binary, log, nullptr, environment,
                                        options_.candidate_launcher);
          }
          if (!options_.sandbox) {
            sandbox_summary_ = "sandbox disabled (--no-sandbox)";
            return WorkerProcess::start(options_.worker_binary, log, nullptr, environment);
          }
          const sandbox::Policy policy = candidate_policy(scratch);
          auto process = WorkerProcess::start(options_.worker_binary, log, &policy, environment);
          if (sandbox_summary_.empty()) sandbox_summary_ = process->sandbox_report().summary();
          return process;
        },
        // A profiler writes its report after the worker exits.
        options_.candidate_launcher.empty() ? kExitGrace : std::chrono::seconds(300));
  }
}

record::WorkloadResult Evaluator::evaluate_workload(size_t index, const task::Workload& workload,
                                                    Workers& workers,
                                                    record::Environment& environment) {
  const auto started = Clock::now();
  const auto& spec = task_.evaluation;
  const auto& workloads = options_.quick ? task_.quick_workloads : task_.workloads;
  const std::string prefix = fmt::format("[{}/{}] {}", index + 1, workloads.size(), workload.label);
  const TrialPlan plan =
      make_trial_plan(base_seed_, static_cast<int>(index), spec.correctness_trials);
  const bool timed = !options_.quick && options_.profile_calls == 0;

  // Quick: the trials before timing. Full: those, the last timed call, and the after-timing trial.
  const int expected_trials = spec.correctness_trials + (timed ? 2 : 0);
  // A profile leaves out the distribution check's draws: thousands of calls under the tool.
  const bool profiled = options_.profile_calls > 0;
  // A timing-only anchor computes another operator: no distribution draws, no comparison.
  const bool timing_only = !outputs_compared();
  WorkloadJudge judge(task_, workload.label, expected_trials, timed, !profiled && !timing_only);
  if (timing_only) judge.leave_outputs_uncompared();
  const Limits limits{spec.call_timeout_seconds,
                      started + std::chrono::milliseconds(
                                    static_cast<long long>(spec.workload_timeout_seconds * 1000)),
                      options_.kind == task::ImplKind::anchor ? kAnchorCompileSeconds : 0.0};
  std::map<std::string, double> phases;
  double irreducible_s = 0.0;
  double compare_s = 0.0;
  const auto judged = [&](auto&& step) {
    const auto start = Clock::now();
    step();
    compare_s += seconds_since(start);
  };

  protocol::Workload message;
  message.index = static_cast<int>(index);
  message.label = workload.label;
  message.config = task_.fixed_params;
  for (const auto& [key, value] : workload.params.items()) message.config[key] = value;
  message.time_calls = timed;
  message.profile_calls = options_.profile_calls;
  message.peak_aux_bytes = workload.peak_aux_bytes;
  message.unread_allowed = task::parameters_not_for_inputs(task_);
  configure_distribution_check(task_, workload, message);
  if (profiled || timing_only) message.distribution_draws = 0;

  // A worker that did not end with Done or a Failure message: the workload's verdict says how.
  const auto judge_ending = [&](WorkerSession& session, bool reference, Ending ending,
                                const std::string& detail) {
    const std::string name = reference ? "reference" : "candidate";
    if (ending == Ending::cancelled) throw EvaluationCancelled();
    if (ending == Ending::timed_out || ending == Ending::workload_timed_out) {
      judge.fail(reference ? record::Verdict::harness_error : record::Verdict::timed_out,
                 reference ? "reference_timeout"
                 : ending == Ending::timed_out ? "call_timeout" : "workload_timeout",
                 detail + "; worker log:\n" + session.log_tail(kLogTail));
    } else if (ending == Ending::rejected) {
      judge.fail(reference ? record::Verdict::harness_error : record::Verdict::invalid,
                 "channel_forged", detail);
    } else if (ending == Ending::crashed) {
      judge.fail(reference ? record::Verdict::harness_error : record::Verdict::crashed,
                 reference ? "reference_crashed" : "worker_crashed",
                 "the " + name + " worker " + session.exit_status().describe() +
                     " before reporting a result; worker log:\n" + session.log_tail(kLogTail));
    }
  };

  start_workers(workers);
  // The candidate worker loads (interpreter, PyTorch, the candidate) while the reference works.
  workers.candidate->start();
  note(prefix + ": reference outputs");
  message.trials = timed ? plan.all() : plan.before_timing;
  std::string detail;
  Ending ending = workers.reference->run(
      message, limits, options_.stop,
      [&](const nlohmann::json& received) {
        const std::string event = protocol::event_of(received);
        if (event == protocol::Ready::kEvent) {
          fill_environment(environment, protocol::decode<protocol::Ready>(received).environment);
        } else if (event == protocol::Trial::kEvent) {
          const auto trial = protocol::decode<protocol::Trial>(received);
          // What a native candidate's outputs look like: the reference's, on every trial.
          if (trial.trial == 0) {
            message.output_specs = trial.outputs;
            for (auto& output : message.output_specs) output.path.clear();
          }
          judged([&] { judge.add_reference_trial(trial); });
        } else if (event == protocol::Targets::kEvent) {
          judged([&] { judge.add_reference_targets(protocol::decode<protocol::Targets>(received)); });
        } else if (event == protocol::Failure::kEvent) {
          // The task's own failure keeps its verdict and reason; any other is d2k's.
          const auto failure = protocol::decode<protocol::Failure>(received);
          if (record::parse_verdict(failure.verdict) == record::Verdict::task_error) {
            judge.fail(record::Verdict::task_error, failure.reason_code, failure.message);
          } else {
            judge.fail(record::Verdict::harness_error, "reference_failed", failure.message);
          }
        } else if (event == protocol::Done::kEvent) {
          const auto done = protocol::decode<protocol::Done>(received);
          add_phases(phases, done);
          irreducible_s += done.checked_call_seconds;
        }
      },
      detail);
  phases["start"] += workers.reference->start_seconds();
  judge_ending(*workers.reference, true, ending, detail);

  RuntimeAudit runtime_audit = RuntimeAudit::for_workload(task_, workload, options_.kind);
  if (!judge.failed()) {
    note(prefix + ": candidate trials");
    message.trials = timed ? plan.all() : plan.before_timing;
    ending = workers.candidate->run(
        message, limits, options_.stop,
        [&](const nlohmann::json& received) {
          const std::string event = protocol::event_of(received);
          if (event == protocol::Ready::kEvent) {
            fill_environment(environment, protocol::decode<protocol::Ready>(received).environment);
          } else if (event == protocol::Workspace::kEvent) {
            judge.set_workspace(protocol::decode<protocol::Workspace>(received).bytes);
          } else if (event == protocol::Audit::kEvent) {
            const auto audit = protocol::decode<protocol::Audit>(received);
            if (audit.call == "fresh") {
              // Audit first, then time: a call that breaks a rule is never timed.
              const auto findings = runtime_audit.add_fresh(audit.audit);
              if (!findings.empty()) judge.fail(record::Verdict::invalid, findings.front().reason_code,
                                                "runtime audit before timing");
              workers.candidate->send(protocol::encode(protocol::AuditDecision{findings.empty()}));
            } else {
              runtime_audit.add_timed(audit.audit);
            }
          } else if (event == protocol::Trial::kEvent) {
            judged([&] { judge.add_candidate_trial(protocol::decode<protocol::Trial>(received)); });
          } else if (event == protocol::Draws::kEvent) {
            note(prefix + fmt::format(": {} distribution draws checked", workload.distribution_draws));
            judged([&] { judge.add_candidate_draws(protocol::decode<protocol::Draws>(received)); });
          } else if (event == protocol::TimingResult::kEvent) {
            const auto timing = protocol::decode<protocol::TimingResult>(received);
            for (const auto& sample : timing.latency.samples) irreducible_s += sample.duration_s;
            judge.add_timing(timing);
          } else if (event == protocol::Progress::kEvent) {
            const std::string phase = received.value("phase", "");
            if (phase == "timing") note(prefix + ": timing");
            if (phase == "audit") note(prefix + ": audit call");
          } else if (event == protocol::Failure::kEvent) {
            const auto failure = protocol::decode<protocol::Failure>(received);
            if (record::parse_verdict(failure.verdict) == record::Verdict::task_error) {
              // The reference made the same inputs: the candidate changed what they depend on.
              judge.fail(record::Verdict::runtime_error, "candidate_inputs", failure.message);
            } else {
              judge.fail(record::parse_verdict(failure.verdict), failure.reason_code, failure.message);
            }
          } else if (event == protocol::Done::kEvent) {
            const auto done = protocol::decode<protocol::Done>(received);
            add_phases(phases, done);
            irreducible_s += done.checked_call_seconds;
          }
        },
        detail);
    phases["start"] += workers.candidate->start_seconds();
    judge_ending(*workers.candidate, false, ending, detail);
    // A candidate that failed a workload may have left work behind in its process (a thread that
    // launches later, a cache, corrupted memory): the next workload gets a fresh worker.
    if (judge.failed()) workers.candidate->end_worker();
  }

  const double wall_s = seconds_since(started);
  record::WorkloadResult result = judge.finish(wall_s);
  runtime_audit.apply(result);
  phases["compare"] += compare_s;
  const double accounted = std::accumulate(phases.begin(), phases.end(), 0.0,
                                           [](double sum, const auto& p) { return sum + p.second; });
  phases["other"] = std::max(0.0, wall_s - accounted);
  result.phases = std::move(phases);
  result.irreducible_seconds = irreducible_s;
  return result;
}

}  // namespace d2k::eval
