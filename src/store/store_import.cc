#include "store/store_import.h"

#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "store/agent_store.h"
#include "store/store.h"

namespace d2k::store {
namespace {

namespace fs = std::filesystem;

// What two copies of one row must agree on: everything but the row id.
nlohmann::json contents(record::EvaluationResult result) {
  result.id = 0;
  return result;
}

nlohmann::json contents(record::JudgeAssessment assessment) {
  assessment.id = 0;
  return assessment;
}

bool same_run(const AgentRun& a, const AgentRun& b) {
  return a.created_at == b.created_at && a.task_id == b.task_id && a.config == b.config &&
         a.agent == b.agent && a.model == b.model && a.workspace == b.workspace;
}

bool same_contents(const AgentRun& a, const AgentRun& b) {
  return a.finished_at == b.finished_at && a.turn_budget == b.turn_budget &&
         a.turns_used == b.turns_used && a.turn_source == b.turn_source && a.status == b.status &&
         a.prompt_tokens == b.prompt_tokens && a.completion_tokens == b.completion_tokens &&
         a.cost_usd == b.cost_usd;
}

class Importer {
 public:
  Importer(const fs::path& source, const fs::path& destination)
      : source_name_(source.string()),
        source_(Store::open(source)),
        source_agents_(source_.agent_runs()),
        destination_(Store::open(destination)),
        destination_agents_(destination_.agent_runs()) {}

  ImportReport run() {
    Query all;
    all.limit = 0;
    all.include_quick = true;
    for (const EvaluationSummary& summary : source_.evaluations().list(all)) import_evaluation(summary.id);
    for (const AgentRun& run : source_agents_.runs()) import_run(run);
    JudgeQuery judged;
    judged.limit = 0;
    for (const record::JudgeAssessment& assessment : source_.judge_assessments().list(judged)) {
      import_assessment(assessment);
    }
    return report_;
  }

 private:
  void conflict(const std::string& what, int64_t stored_id) {
    report_.conflicts.push_back(
        fmt::format("{}: {} differs from the stored row {}; kept the stored row", source_name_,
                    what, stored_id));
  }

  // The destination's copy of `result`, by its key.
  std::optional<record::EvaluationResult> stored_copy(const record::EvaluationResult& result) const {
    Query query;
    query.task = result.task_id;
    query.impl_kind = result.impl_kind;
    query.impl_hash = result.impl_hash;
    query.include_quick = true;
    query.limit = 0;
    for (const EvaluationSummary& summary : destination_.evaluations().list(query)) {
      if (summary.created_at != result.created_at) continue;
      auto stored = destination_.evaluations().load(summary.id);
      if (stored && stored->base_seed == result.base_seed) return stored;
    }
    return std::nullopt;
  }

  void import_evaluation(int64_t source_id) {
    record::EvaluationResult result = *source_.evaluations().load(source_id);
    if (auto stored = stored_copy(result)) {
      evaluation_ids_[source_id] = stored->id;
      ++report_.evaluations_present;
      if (contents(*stored).dump() != contents(result).dump()) {
        conflict(fmt::format("evaluation {} ({} {} of {}, {})", source_id, result.impl_kind,
                             result.impl_hash, result.task_id, result.created_at),
                 stored->id);
      }
      return;
    }
    result.id = 0;
    evaluation_ids_[source_id] = destination_.evaluations().save(result);
    ++report_.evaluations_added;
  }

  std::optional<int64_t> mapped(const std::optional<int64_t>& source_id) const {
    if (!source_id) return std::nullopt;
    const auto it = evaluation_ids_.find(*source_id);
    return it == evaluation_ids_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }

  void import_run(const AgentRun& source_run) {
    AgentRunQuery query;
    query.tasks = {source_run.task_id};
    std::optional<AgentRun> stored;
    for (const AgentRun& run : destination_agents_.runs(query)) {
      if (same_run(run, source_run)) stored = run;
    }
    if (stored) {
      ++report_.runs_present;
      if (!same_contents(*stored, source_run)) {
        conflict(fmt::format("agent run {} ({} {} of {}, {})", source_run.id, source_run.config,
                             source_run.agent, source_run.task_id, source_run.created_at),
                 stored->id);
      }
    } else {
      AgentRun run = source_run;
      run.id = 0;
      run.final_evaluation_id = mapped(source_run.final_evaluation_id);
      run.baseline_evaluation_id = mapped(source_run.baseline_evaluation_id);
      destination_agents_.create_run(run);
      stored = run;
      ++report_.runs_added;
    }
    // Events are appended in order, so a run whose import was cut short lacks only a tail.
    const std::vector<AgentEvent> events = source_agents_.events(source_run.id);
    const size_t present = destination_agents_.events(stored->id).size();
    for (size_t i = present; i < events.size(); ++i) {
      AgentEvent event = events[i];
      event.run_id = stored->id;
      event.evaluation_id = mapped(event.evaluation_id);
      destination_agents_.append_event(event);
      ++report_.events_added;
    }
  }

  void import_assessment(record::JudgeAssessment assessment) {
    JudgeQuery query;
    query.task = assessment.task_id;
    query.kind = assessment.kind;
    query.limit = 0;
    for (const record::JudgeAssessment& stored : destination_.judge_assessments().list(query)) {
      if (stored.created_at != assessment.created_at ||
          stored.candidate_hash != assessment.candidate_hash || stored.model != assessment.model ||
          stored.template_hash != assessment.template_hash) {
        continue;
      }
      ++report_.assessments_present;
      if (contents(stored).dump() != contents(assessment).dump()) {
        conflict(fmt::format("judge assessment {} ({} of {}, {})", assessment.id,
                             record::to_string(assessment.kind), assessment.task_id,
                             assessment.created_at),
                 stored.id);
      }
      return;
    }
    assessment.id = 0;
    destination_.judge_assessments().save(assessment);
    ++report_.assessments_added;
  }

  std::string source_name_;
  Store source_;
  AgentStore source_agents_;
  Store destination_;
  AgentStore destination_agents_;
  std::map<int64_t, int64_t> evaluation_ids_;  // source id -> destination id
  ImportReport report_;
};

}  // namespace

ImportReport& ImportReport::operator+=(const ImportReport& other) {
  evaluations_added += other.evaluations_added;
  evaluations_present += other.evaluations_present;
  runs_added += other.runs_added;
  runs_present += other.runs_present;
  events_added += other.events_added;
  assessments_added += other.assessments_added;
  assessments_present += other.assessments_present;
  conflicts.insert(conflicts.end(), other.conflicts.begin(), other.conflicts.end());
  return *this;
}

ImportReport import_store(const fs::path& source, const fs::path& destination) {
  if (!fs::is_regular_file(source)) throw StoreError("no store at " + source.string());
  if (fs::exists(destination) && fs::equivalent(source, destination)) {
    throw StoreError("cannot import " + source.string() + " into itself");
  }
  return Importer(source, destination).run();
}

}  // namespace d2k::store
