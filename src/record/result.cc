#include "record/result.h"

#include <limits>
#include <stdexcept>

#include "record/json_fields.h"
#include "util/enum_names.h"

namespace d2k::record {
namespace {

constexpr util::EnumNames<Verdict, 8> kVerdictNames{{
    {Verdict::passed, "passed"},
    {Verdict::incorrect, "incorrect"},
    {Verdict::runtime_error, "runtime_error"},
    {Verdict::crashed, "crashed"},
    {Verdict::timed_out, "timed_out"},
    {Verdict::invalid, "invalid"},
    {Verdict::harness_error, "harness_error"},
    {Verdict::task_error, "task_error"},
}};

}  // namespace

std::string to_string(Verdict verdict) {
  const char* name = util::find_name(kVerdictNames, verdict);
  return name != nullptr ? name : "harness_error";
}

Verdict parse_verdict(std::string_view text) {
  if (const auto verdict = util::find_value(kVerdictNames, text)) return *verdict;
  throw std::invalid_argument("unknown verdict '" + std::string(text) + "'");
}

bool EvaluationResult::passed() const {
  if (workloads.empty()) return false;
  for (const auto& w : workloads) {
    if (w.verdict != Verdict::passed) return false;
  }
  return true;
}

void to_json(nlohmann::json& j, const OutputCheck& v) {
  j = {{"name", v.name},          {"rel_norm_error", v.rel_norm_error},
       {"max_abs_error", v.max_abs_error}, {"mismatches", v.mismatches},
       {"elements", v.elements},  {"nonfinite", v.nonfinite},
       {"passed", v.passed},      {"failure", v.failure}};
}

void from_json(const nlohmann::json& j, OutputCheck& v) {
  v.name = value_or<std::string>(j, "name", "");
  v.rel_norm_error = number_or(j, "rel_norm_error", 0.0);
  v.max_abs_error = number_or(j, "max_abs_error", 0.0);
  v.mismatches = value_or<int64_t>(j, "mismatches", 0);
  v.elements = value_or<int64_t>(j, "elements", 0);
  v.nonfinite = value_or<int64_t>(j, "nonfinite", 0);
  v.passed = value_or<bool>(j, "passed", false);
  v.failure = value_or<std::string>(j, "failure", "");
}

void to_json(nlohmann::json& j, const TrialCheck& v) {
  j = {{"trial", v.trial},   {"seed", v.seed},         {"kind", v.kind},
       {"passed", v.passed}, {"outputs", v.outputs}, {"failure", v.failure}};
}

void from_json(const nlohmann::json& j, TrialCheck& v) {
  v.trial = value_or<int>(j, "trial", 0);
  v.seed = value_or<uint64_t>(j, "seed", 0);
  v.kind = value_or<std::string>(j, "kind", "");
  v.passed = value_or<bool>(j, "passed", false);
  v.outputs = value_or<std::vector<OutputCheck>>(j, "outputs", {});
  v.failure = value_or<std::string>(j, "failure", "");
}

void to_json(nlohmann::json& j, const WorkloadResult& v) {
  j = {{"workload", v.workload},   {"verdict", to_string(v.verdict)},
       {"reason_code", v.reason_code}, {"message", v.message},
       {"trials", v.trials},       {"wall_seconds", v.wall_seconds},
       {"from_cache", v.from_cache}};
  j["latency"] = v.latency ? nlohmann::json(*v.latency) : nlohmann::json(nullptr);
  if (v.workspace_bytes) j["workspace_bytes"] = *v.workspace_bytes;
  if (v.sol) j["sol"] = *v.sol;
  if (!v.findings.empty()) j["findings"] = v.findings;
  if (v.audit) j["audit"] = *v.audit;
  if (v.timed_audit) j["timed_audit"] = *v.timed_audit;
  if (!v.phases.empty()) j["phases"] = v.phases;
  if (v.irreducible_seconds > 0.0) j["irreducible_seconds"] = v.irreducible_seconds;
}

void from_json(const nlohmann::json& j, WorkloadResult& v) {
  v.workload = value_or<std::string>(j, "workload", "");
  v.verdict = parse_verdict(value_or<std::string>(j, "verdict", "harness_error"));
  v.reason_code = value_or<std::string>(j, "reason_code", "");
  v.message = value_or<std::string>(j, "message", "");
  v.trials = value_or<std::vector<TrialCheck>>(j, "trials", {});
  v.wall_seconds = number_or(j, "wall_seconds", 0.0);
  v.from_cache = value_or<bool>(j, "from_cache", false);
  auto it = j.find("latency");
  if (it != j.end() && !it->is_null()) v.latency = it->get<Latency>();
  v.workspace_bytes.reset();
  if (auto bytes = j.find("workspace_bytes"); bytes != j.end() && !bytes->is_null()) {
    v.workspace_bytes = bytes->get<int64_t>();
  }
  v.sol.reset();
  if (auto sol = j.find("sol"); sol != j.end() && !sol->is_null()) v.sol = sol->get<SpeedOfLight>();
  v.findings = value_or<std::vector<Finding>>(j, "findings", {});
  v.audit.reset();
  if (auto audit = j.find("audit"); audit != j.end() && !audit->is_null()) {
    v.audit = audit->get<KernelAudit>();
  }
  v.timed_audit.reset();
  if (auto audit = j.find("timed_audit"); audit != j.end() && !audit->is_null()) {
    v.timed_audit = audit->get<KernelAudit>();
  }
  v.phases = value_or<std::map<std::string, double>>(j, "phases", {});
  v.irreducible_seconds = number_or(j, "irreducible_seconds", 0.0);
}

void to_json(nlohmann::json& j, const Environment& v) {
  j = {{"device_name", v.device_name}, {"driver", v.driver}, {"cuda", v.cuda},
       {"torch", v.torch},             {"triton", v.triton}, {"python", v.python},
       {"host", v.host},               {"d2k_version", v.d2k_version}};
}

void from_json(const nlohmann::json& j, Environment& v) {
  v.device_name = value_or<std::string>(j, "device_name", "");
  v.driver = value_or<std::string>(j, "driver", "");
  v.cuda = value_or<std::string>(j, "cuda", "");
  v.torch = value_or<std::string>(j, "torch", "");
  v.triton = value_or<std::string>(j, "triton", "");
  v.python = value_or<std::string>(j, "python", "");
  v.host = value_or<std::string>(j, "host", "");
  v.d2k_version = value_or<std::string>(j, "d2k_version", "");
}

void to_json(nlohmann::json& j, const Build& v) {
  j = {{"cached", v.cached}, {"seconds", v.seconds}, {"hash", v.hash}, {"command", v.command}};
}

void from_json(const nlohmann::json& j, Build& v) {
  v.cached = value_or<bool>(j, "cached", false);
  v.seconds = number_or(j, "seconds", 0.0);
  v.hash = value_or<std::string>(j, "hash", "");
  v.command = value_or<std::string>(j, "command", "");
}

void to_json(nlohmann::json& j, const EvaluationResult& v) {
  j = {{"id", v.id},
       {"created_at", v.created_at},
       {"task", v.task_id},
       {"impl_kind", v.impl_kind},
       {"impl_path", v.impl_path},
       {"impl_hash", v.impl_hash},
       {"mode", v.mode},
       {"device", v.device},
       {"protocol_version", v.protocol_version},
       {"base_seed", v.base_seed},
       {"environment", v.environment},
       {"passed", v.passed()},
       {"workloads", v.workloads}};
  if (v.build) j["build"] = *v.build;
  if (!v.findings.empty()) j["findings"] = v.findings;
  if (!v.sandbox.empty()) j["sandbox"] = v.sandbox;
  if (!v.anchor.empty()) j["anchor"] = v.anchor;
  if (!v.outputs_compared) j["outputs_compared"] = false;
}

void from_json(const nlohmann::json& j, EvaluationResult& v) {
  v.id = value_or<int64_t>(j, "id", 0);
  v.created_at = value_or<std::string>(j, "created_at", "");
  v.task_id = value_or<std::string>(j, "task", "");
  v.impl_kind = value_or<std::string>(j, "impl_kind", "");
  v.impl_path = value_or<std::string>(j, "impl_path", "");
  v.impl_hash = value_or<std::string>(j, "impl_hash", "");
  v.mode = value_or<std::string>(j, "mode", "full");
  v.device = value_or<std::string>(j, "device", "");
  v.protocol_version = value_or<int>(j, "protocol_version", kProtocolVersion);
  v.base_seed = value_or<uint64_t>(j, "base_seed", 0);
  v.environment = value_or<Environment>(j, "environment", {});
  v.workloads = value_or<std::vector<WorkloadResult>>(j, "workloads", {});
  v.build.reset();
  if (auto build = j.find("build"); build != j.end() && !build->is_null()) {
    v.build = build->get<Build>();
  }
  v.findings = value_or<std::vector<Finding>>(j, "findings", {});
  v.sandbox = value_or<std::string>(j, "sandbox", "");
  v.anchor = value_or<std::string>(j, "anchor", "");
  v.outputs_compared = value_or<bool>(j, "outputs_compared", true);
}

}  // namespace d2k::record
