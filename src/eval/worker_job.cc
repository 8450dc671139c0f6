#include "eval/worker_job.h"

namespace d2k::eval {

void to_json(nlohmann::json& j, const WorkerJob& v) {
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& t : v.trials) trials.push_back({{"index", t.index}, {"seed", t.seed}, {"kind", t.kind}});
  j = {{"role", v.role == WorkerRole::reference ? "reference" : "candidate"},
       {"task_dir", v.task_dir.string()},
       {"implementation", v.implementation.string()},
       {"language", v.language},
       {"library", v.library.string()},
       {"device", v.device},
       {"config", v.config},
       {"arguments", v.arguments},
       {"mutable_inputs", v.mutable_inputs},
       {"outputs", v.outputs},
       {"output_specs", v.output_specs},
       {"trials", trials},
       {"timing_method", v.timing_method},
       {"timing",
        {{"min_sample_seconds", v.timing.min_sample_seconds},
         {"samples", v.timing.samples},
         {"estimate_calls", v.timing.estimate_calls},
         {"max_calls_per_sample", v.timing.max_calls_per_sample}}},
       {"scratch", v.scratch.string()},
       {"audit_call", v.audit_call},
       {"distribution_output", v.distribution_output},
       {"distribution_seed_index", v.distribution_seed_index},
       {"distribution_draws", v.distribution_draws}};
}

void from_json(const nlohmann::json& j, WorkerJob& v) {
  v.role = j.at("role").get<std::string>() == "reference" ? WorkerRole::reference
                                                           : WorkerRole::candidate;
  v.task_dir = j.at("task_dir").get<std::string>();
  v.implementation = j.at("implementation").get<std::string>();
  v.language = j.at("language").get<std::string>();
  v.library = j.at("library").get<std::string>();
  v.device = j.at("device").get<std::string>();
  v.config = j.at("config");
  v.arguments = j.at("arguments").get<std::vector<std::string>>();
  v.mutable_inputs = j.at("mutable_inputs").get<std::vector<std::string>>();
  v.outputs = j.at("outputs").get<std::vector<std::string>>();
  v.output_specs = j.at("output_specs").get<std::vector<TensorFile>>();
  v.trials.clear();
  for (const auto& t : j.at("trials")) {
    v.trials.push_back({t.at("index").get<int>(), t.at("seed").get<uint64_t>(),
                        t.at("kind").get<std::string>()});
  }
  v.timing_method = j.at("timing_method").get<std::string>();
  const auto& timing = j.at("timing");
  v.timing.min_sample_seconds = timing.at("min_sample_seconds").get<double>();
  v.timing.samples = timing.at("samples").get<int>();
  v.timing.estimate_calls = timing.at("estimate_calls").get<int>();
  v.timing.max_calls_per_sample = timing.at("max_calls_per_sample").get<long long>();
  v.scratch = j.at("scratch").get<std::string>();
  v.audit_call = j.value("audit_call", false);
  v.distribution_output = j.value("distribution_output", std::string());
  v.distribution_seed_index = j.value("distribution_seed_index", -1);
  v.distribution_draws = j.value("distribution_draws", 0);
}

}  // namespace d2k::eval
