#include "protocol/messages.h"

namespace d2k::protocol {
namespace {

template <typename T>
T value_or(const nlohmann::json& j, const char* key, T fallback) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? fallback : it->get<T>();
}

nlohmann::json settings_json(const timing::Settings& v) {
  return {{"min_sample_seconds", v.min_sample_seconds},
          {"samples", v.samples},
          {"stopping", v.stopping},
          {"noise_target", v.noise_target},
          {"max_sampling_seconds", v.max_sampling_seconds},
          {"max_held_back_retakes", v.max_held_back_retakes},
          {"max_short_retakes", v.max_short_retakes},
          {"graph_seconds", v.graph_seconds},
          {"max_calls_per_graph", v.max_calls_per_graph},
          {"max_calls_per_sample", v.max_calls_per_sample},
          {"untimed_work_seconds", v.untimed_work_seconds}};
}

timing::Settings settings_from(const nlohmann::json& j) {
  timing::Settings v;
  v.min_sample_seconds = j.at("min_sample_seconds").get<double>();
  v.samples = j.at("samples").get<int>();
  v.stopping = j.at("stopping").get<std::string>();
  v.noise_target = j.at("noise_target").get<double>();
  v.max_sampling_seconds = j.at("max_sampling_seconds").get<double>();
  v.max_held_back_retakes = j.at("max_held_back_retakes").get<int>();
  v.max_short_retakes = j.at("max_short_retakes").get<int>();
  v.graph_seconds = j.at("graph_seconds").get<double>();
  v.max_calls_per_graph = j.at("max_calls_per_graph").get<int64_t>();
  v.max_calls_per_sample = j.at("max_calls_per_sample").get<int64_t>();
  v.untimed_work_seconds = j.at("untimed_work_seconds").get<double>();
  return v;
}

}  // namespace

std::string event_of(const nlohmann::json& j) {
  if (!j.is_object()) return "";
  auto it = j.find("event");
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

void to_json(nlohmann::json& j, const PlannedTrial& v) {
  j = {{"index", v.index}, {"seed", v.seed}, {"kind", v.kind}};
}

void from_json(const nlohmann::json& j, PlannedTrial& v) {
  v.index = j.at("index").get<int>();
  v.seed = j.at("seed").get<uint64_t>();
  v.kind = j.at("kind").get<std::string>();
}

void to_json(nlohmann::json& j, const Setup& v) {
  j = {{"role", v.role == WorkerRole::reference ? "reference" : "candidate"},
       {"task_dir", v.task_dir.string()},
       {"implementation", v.implementation.string()},
       {"import_dir", v.import_dir.string()},
       {"language", v.language},
       {"library", v.library.string()},
       {"device", v.device},
       {"arguments", v.arguments},
       {"mutable_inputs", v.mutable_inputs},
       {"outputs", v.outputs},
       {"timing_method", v.timing_method},
       {"timing", settings_json(v.timing)},
       {"cache_policy", v.cache_policy},
       {"scratch", v.scratch.string()},
       {"audit_calls", v.audit_calls}};
}

void from_json(const nlohmann::json& j, Setup& v) {
  v.role = j.at("role").get<std::string>() == "reference" ? WorkerRole::reference
                                                           : WorkerRole::candidate;
  v.task_dir = j.at("task_dir").get<std::string>();
  v.implementation = j.at("implementation").get<std::string>();
  v.import_dir = j.at("import_dir").get<std::string>();
  v.language = j.at("language").get<std::string>();
  v.library = j.at("library").get<std::string>();
  v.device = j.at("device").get<std::string>();
  v.arguments = j.at("arguments").get<std::vector<std::string>>();
  v.mutable_inputs = j.at("mutable_inputs").get<std::vector<std::string>>();
  v.outputs = j.at("outputs").get<std::vector<std::string>>();
  v.timing_method = j.at("timing_method").get<std::string>();
  v.timing = settings_from(j.at("timing"));
  v.cache_policy = j.at("cache_policy").get<std::string>();
  v.scratch = j.at("scratch").get<std::string>();
  v.audit_calls = j.at("audit_calls").get<bool>();
}

void to_json(nlohmann::json& j, const Workload& v) {
  j = {{"index", v.index},
       {"label", v.label},
       {"config", v.config},
       {"trials", v.trials},
       {"output_specs", v.output_specs},
       {"time_calls", v.time_calls},
       {"distribution_output", v.distribution_output},
       {"distribution_seed_index", v.distribution_seed_index},
       {"distribution_draws", v.distribution_draws},
       {"profile_calls", v.profile_calls},
       {"unread_allowed", v.unread_allowed}};
  j["peak_aux_bytes"] = v.peak_aux_bytes ? nlohmann::json(*v.peak_aux_bytes) : nlohmann::json();
}

void from_json(const nlohmann::json& j, Workload& v) {
  v.index = j.at("index").get<int>();
  v.label = j.at("label").get<std::string>();
  v.config = j.at("config");
  v.trials = j.at("trials").get<std::vector<PlannedTrial>>();
  v.output_specs = j.at("output_specs").get<std::vector<TensorFile>>();
  v.time_calls = j.at("time_calls").get<bool>();
  v.peak_aux_bytes.reset();
  if (const auto& bytes = j.at("peak_aux_bytes"); !bytes.is_null()) {
    v.peak_aux_bytes = bytes.get<int64_t>();
  }
  v.distribution_output = j.at("distribution_output").get<std::string>();
  v.distribution_seed_index = j.at("distribution_seed_index").get<int>();
  v.distribution_draws = j.at("distribution_draws").get<int>();
  v.profile_calls = j.at("profile_calls").get<int>();
  v.unread_allowed = j.value("unread_allowed", std::vector<std::string>{});
}

void to_json(nlohmann::json& j, const AuditDecision& v) { j = {{"proceed", v.proceed}}; }
void from_json(const nlohmann::json& j, AuditDecision& v) { v.proceed = j.at("proceed").get<bool>(); }
void to_json(nlohmann::json& j, const Exit&) { j = nlohmann::json::object(); }
void from_json(const nlohmann::json&, Exit&) {}

void to_json(nlohmann::json& j, const Ready& v) { j = {{"environment", v.environment}}; }
void from_json(const nlohmann::json& j, Ready& v) { v.environment = j.at("environment"); }

void to_json(nlohmann::json& j, const Progress& v) {
  j = {{"phase", v.phase}, {"trial", v.trial}, {"done", v.done},
       {"expected_seconds", v.expected_seconds}};
}

void from_json(const nlohmann::json& j, Progress& v) {
  v.phase = j.at("phase").get<std::string>();
  v.trial = value_or<int>(j, "trial", -1);
  v.done = value_or<int>(j, "done", -1);
  v.expected_seconds = value_or<double>(j, "expected_seconds", 0.0);
}

void to_json(nlohmann::json& j, const Trial& v) {
  j = {{"trial", v.trial},
       {"seed", v.seed},
       {"kind", v.kind},
       {"inputs_before", v.inputs_before},
       {"inputs_after", v.inputs_after},
       {"outputs", v.outputs},
       {"state", v.state}};
}

void from_json(const nlohmann::json& j, Trial& v) {
  v.trial = j.at("trial").get<int>();
  v.seed = j.at("seed").get<uint64_t>();
  v.kind = j.at("kind").get<std::string>();
  v.inputs_before = j.at("inputs_before").get<std::map<std::string, std::string>>();
  v.inputs_after = j.at("inputs_after").get<std::map<std::string, std::string>>();
  v.outputs = j.at("outputs").get<std::vector<TensorFile>>();
  v.state = j.at("state").get<std::vector<TensorFile>>();
}

void to_json(nlohmann::json& j, const Targets& v) { j = {{"trial", v.trial}, {"files", v.files}}; }

void from_json(const nlohmann::json& j, Targets& v) {
  v.trial = j.at("trial").get<int>();
  v.files = j.at("files").get<std::vector<TensorFile>>();
}

void to_json(nlohmann::json& j, const Draws& v) { j = {{"trial", v.trial}, {"samples", v.samples}}; }

void from_json(const nlohmann::json& j, Draws& v) {
  v.trial = j.at("trial").get<int>();
  v.samples = j.at("samples").get<TensorFile>();
}

void to_json(nlohmann::json& j, const Workspace& v) { j = {{"bytes", v.bytes}}; }
void from_json(const nlohmann::json& j, Workspace& v) { v.bytes = j.at("bytes").get<uint64_t>(); }

void to_json(nlohmann::json& j, const Audit& v) { j = {{"call", v.call}, {"audit", v.audit}}; }

void from_json(const nlohmann::json& j, Audit& v) {
  v.call = j.at("call").get<std::string>();
  v.audit = j.at("audit").get<record::KernelAudit>();
}

void to_json(nlohmann::json& j, const TimingResult& v) {
  j = {{"latency", v.latency}, {"sets_before", v.sets_before}, {"sets_after", v.sets_after}};
}

void from_json(const nlohmann::json& j, TimingResult& v) {
  v.latency = j.at("latency").get<record::Latency>();
  using Digests = std::vector<std::map<std::string, std::string>>;
  v.sets_before = j.at("sets_before").get<Digests>();
  v.sets_after = j.at("sets_after").get<Digests>();
}

void to_json(nlohmann::json& j, const Done& v) {
  j = {{"phases", v.phases}, {"checked_call_seconds", v.checked_call_seconds}};
}

void from_json(const nlohmann::json& j, Done& v) {
  v.phases = value_or<std::map<std::string, double>>(j, "phases", {});
  v.checked_call_seconds = value_or<double>(j, "checked_call_seconds", 0.0);
}

void to_json(nlohmann::json& j, const Failure& v) {
  j = {{"verdict", v.verdict}, {"reason_code", v.reason_code}, {"message", v.message}};
}

void from_json(const nlohmann::json& j, Failure& v) {
  v.verdict = j.at("verdict").get<std::string>();
  v.reason_code = j.at("reason_code").get<std::string>();
  v.message = j.at("message").get<std::string>();
}

}  // namespace d2k::protocol
