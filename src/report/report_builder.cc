#include "report/report_builder.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "report/results_page_builder.h"
#include "score/judge_scores.h"
#include "score/performance.h"
#include "score/trajectory.h"

namespace d2k::report {
namespace {

constexpr const char* kAgentCommand = "d2k agent run";

// The evaluations a task's fixed rows use, all on the device of its baseline.
struct TaskEvaluations {
  const record::EvaluationResult* baseline = nullptr;
  const record::EvaluationResult* reference = nullptr;
  const record::EvaluationResult* expert = nullptr;    // newest passed expert
  const record::EvaluationResult* solution = nullptr;  // newest `d2k eval --solution`
};

// The runs of one model under one configuration, newest per task.
struct RunGroup {
  std::string model;
  std::string config;
  std::map<std::string, const store::AgentRun*> run_by_task;
};

// One group scored over the task set.
struct GroupScores {
  const RunGroup* group = nullptr;
  std::vector<score::TaskOutcome> outcomes;  // one per task in T
  std::vector<std::string> without_run;
  std::vector<std::string> unscorable;  // final submission on a device without a baseline
};

int config_rank(const std::string& config) {
  for (size_t i = 0; i < kGuidanceConfigs.size(); ++i) {
    if (config == kGuidanceConfigs[i]) return static_cast<int>(i);
  }
  return config == kDesignConfig ? static_cast<int>(kGuidanceConfigs.size()) + 1
                                 : static_cast<int>(kGuidanceConfigs.size());
}

bool is_guidance_config(const std::string& config) {
  return std::find(kGuidanceConfigs.begin(), kGuidanceConfigs.end(), config) !=
         kGuidanceConfigs.end();
}

const record::WorkloadResult* find_workload(const record::EvaluationResult& evaluation,
                                            const std::string& name) {
  for (const auto& w : evaluation.workloads) {
    if (w.workload == name) return &w;
  }
  return nullptr;
}

// A valid measurement: the workload passed and has a latency.
std::optional<double> valid_latency(const record::EvaluationResult* evaluation,
                                    const std::string& workload) {
  if (evaluation == nullptr) return std::nullopt;
  const record::WorkloadResult* w = find_workload(*evaluation, workload);
  if (w == nullptr || w->verdict != record::Verdict::passed || !w->latency) return std::nullopt;
  return w->latency->mean_s;
}

// The score layer's view of `candidate` against `baseline` (which passed on every workload).
score::TaskOutcome outcome(const std::string& task, const record::EvaluationResult* candidate,
                           const record::EvaluationResult& baseline,
                           const record::EvaluationResult* expert) {
  score::TaskOutcome result{.task_id = task,
                            .passed = candidate != nullptr && candidate->passed(),
                            .workloads = {}};
  for (const auto& w : baseline.workloads) {
    result.workloads.push_back({.workload = w.workload,
                                .baseline_s = w.latency->mean_s,
                                .candidate_s = valid_latency(candidate, w.workload),
                                .expert_s = valid_latency(expert, w.workload)});
  }
  return result;
}

// A row's client and model: "claude / claude-opus-4", "codex / (default model)".
std::string run_name(const store::AgentRun& run) {
  return fmt::format("{} / {}", run.agent.empty() ? "(external client)" : run.agent,
                     run.model.empty() ? "(default model)" : run.model);
}

std::string group_label(const std::string& model, const std::string& config) {
  return fmt::format("{} ({})", model, config);
}

bool path_is_under(const std::filesystem::path& path, const std::filesystem::path& folder) {
  if (folder.empty()) return false;
  const auto p = path.lexically_normal();
  const auto f = folder.lexically_normal();
  auto [f_end, p_at] = std::mismatch(f.begin(), f.end(), p.begin(), p.end());
  // A trailing separator in `folder` shows up as an empty last element.
  return f_end == f.end() || (std::next(f_end) == f.end() && f_end->empty());
}

class Builder {
 public:
  Builder(const store::Store& store, const store::AgentStore& agents, const ReportFilter& filter)
      : store_(store), agents_(agents), filter_(filter) {}

  Report build() {
    select_runs();
    select_tasks();
    group_runs();
    score_groups();
    fill_table1();
    fill_table2();
    fill_table4();
    fill_table5();
    fill_table6();
    fill_figure3();
    fill_figure4();
    fill_task_views();
    report_.results = build_results_page(store_, filter_.tasks, filter_.device);
    return std::move(report_);
  }

 private:
  const record::EvaluationResult* evaluation(int64_t id) {
    auto it = loaded_.find(id);
    if (it == loaded_.end()) {
      auto result = store_.evaluations().load(id);
      if (!result) throw std::runtime_error(fmt::format("store has no evaluation {}", id));
      it = loaded_.emplace(id, std::move(*result)).first;
    }
    return &it->second;
  }

  // The newest evaluation of `kind` for `task` on `device` (any device when empty).
  const record::EvaluationResult* newest(const std::string& task, const std::string& kind,
                                         const std::string& device, bool passed_only) {
    store::Query query{.task = task, .impl_kind = kind, .impl_hash = std::nullopt,
                       .passed_only = passed_only, .limit = 0};
    for (const auto& summary : store_.evaluations().list(query)) {
      if (device.empty() || summary.device_name == device) return evaluation(summary.id);
    }
    return nullptr;
  }

  const record::EvaluationResult* baseline_on(const std::string& task,
                                              const std::string& device) {
    return newest(task, "baseline", device, true);
  }

  std::string newest_baseline_device(const std::set<std::string>& tasks) const {
    store::Query query;
    query.impl_kind = "baseline";
    query.passed_only = true;
    query.limit = 0;
    for (const auto& summary : store_.evaluations().list(query)) {
      if (tasks.contains(summary.task_id)) return summary.device_name;
    }
    return "";
  }

  // Only ended runs are scored: an open one may still submit, and one whose client never got
  // to work (agent_unavailable) is no run of its model at all.
  void select_runs() {
    for (auto& run : agents_.runs({.tasks = filter_.tasks, .models = filter_.models, .ids = filter_.runs})) {
      if (run.status == "prepared" || run.status == "running") {
        report_.missing.push_back(
            {fmt::format("run {} ({}, {}, task {}) is still open (status {}); it is left out until it ends",
                         run.id, run_name(run), run.config, run.task_id, run.status),
             fmt::format("d2k agent select {} once its client has stopped", run.id)});
      } else if (run.status == "agent_unavailable") {
        report_.missing.push_back(
            {fmt::format("run {} ({}, {}, task {}) never got to work (agent_unavailable); it is not scored",
                         run.id, run_name(run), run.config, run.task_id),
             "d2k agent run, once the client can authenticate and start"});
      } else {
        runs_.push_back(std::move(run));
      }
    }
  }

  void select_tasks() {
    std::set<std::string> ids(filter_.tasks.begin(), filter_.tasks.end());
    if (ids.empty()) {
      store::Query every;
      every.limit = 0;
      for (const auto& summary : store_.evaluations().list(every)) ids.insert(summary.task_id);
      for (const auto& run : runs_) ids.insert(run.task_id);
    }
    if (ids.empty()) {
      report_.missing.push_back(
          {"no evaluations in the store", "d2k eval TASK --impl baseline (and reference, expert)"});
    }
    const std::string device =
        filter_.device.empty() ? newest_baseline_device(ids) : filter_.device;
    for (const auto& task : ids) {
      TaskEvaluations e;
      e.baseline = baseline_on(task, device);
      if (e.baseline == nullptr) {
        report_.missing.push_back(
            {fmt::format("task {} has no passed baseline evaluation on {}, so it is left out "
                         "of every score",
                         task, device.empty() ? "any device" : device),
             fmt::format("d2k eval {} --impl baseline", task)});
        continue;
      }
      const std::string& device = e.baseline->environment.device_name;
      e.reference = newest(task, "reference", device, false);
      e.expert = newest(task, "expert", device, true);
      e.solution = newest(task, "solution", device, false);
      report_.tasks.push_back(task);
      tasks_.emplace(task, e);
    }
  }

  void group_runs() {
    std::map<std::pair<int, std::pair<std::string, std::string>>, RunGroup> ordered;
    for (const auto& run : runs_) {
      if (!tasks_.contains(run.task_id)) continue;
      // Rows are (client, model, configuration): runs of different clients, or of one client
      // with and without a model named, are never pooled.
      const std::string model = run_name(run);
      RunGroup& group = ordered[{config_rank(run.config), {model, run.config}}];
      group.model = model;
      group.config = run.config;
      group.run_by_task[run.task_id] = &run;  // runs_ is oldest first: the newest stays
    }
    // Models alphabetically, then configurations in guidance order.
    for (auto& [key, group] : ordered) groups_.push_back(std::move(group));
    std::stable_sort(groups_.begin(), groups_.end(), [](const RunGroup& a, const RunGroup& b) {
      return a.model < b.model;
    });
    for (const auto& group : groups_) {
      if (std::find(models_.begin(), models_.end(), group.model) == models_.end()) {
        models_.push_back(group.model);
      }
    }
  }

  // The baseline a run's submissions are scored against: the one it names, else the task's
  // newest passed baseline on the submission's device.
  const record::EvaluationResult* baseline_for(const store::AgentRun& run,
                                               const record::EvaluationResult* submission) {
    if (run.baseline_evaluation_id) return evaluation(*run.baseline_evaluation_id);
    if (submission == nullptr) return tasks_.at(run.task_id).baseline;
    return baseline_on(run.task_id, submission->environment.device_name);
  }

  void score_groups() {
    for (const RunGroup& group : groups_) {
      if (group.config == kDesignConfig) continue;
      GroupScores scores{.group = &group, .outcomes = {}, .without_run = {}, .unscorable = {}};
      for (const auto& task : report_.tasks) {
        const TaskEvaluations& fixed = tasks_.at(task);
        const auto it = group.run_by_task.find(task);
        if (it == group.run_by_task.end()) {
          scores.without_run.push_back(task);
          scores.outcomes.push_back(outcome(task, nullptr, *fixed.baseline, fixed.expert));
          continue;
        }
        const store::AgentRun& run = *it->second;
        const record::EvaluationResult* final_submission =
            run.final_evaluation_id ? evaluation(*run.final_evaluation_id) : nullptr;
        const record::EvaluationResult* baseline = baseline_for(run, final_submission);
        if (baseline == nullptr || !baseline->passed()) {
          scores.unscorable.push_back(task);
          report_.missing.push_back(
              {fmt::format("run {} ({}) has no passed baseline to be scored against", run.id,
                           group_label(group.model, group.config)),
               fmt::format("d2k eval {} --impl baseline on the run's device", task)});
          continue;
        }
        // A broken task says nothing about the candidate: it is not scored as a failure.
        if (final_submission != nullptr &&
            std::any_of(final_submission->workloads.begin(), final_submission->workloads.end(),
                        [](const auto& w) { return w.verdict == record::Verdict::task_error; })) {
          scores.unscorable.push_back(task);
          report_.missing.push_back(
              {fmt::format("run {} ({}) ended in a task error: the task, not the candidate, failed",
                           run.id, group_label(group.model, group.config)),
               fmt::format("fix tasks/{} (d2k show {}), then evaluate the submission again", task, task)});
          continue;
        }
        scores.outcomes.push_back(outcome(task, final_submission, *baseline, fixed.expert));
      }
      scored_.push_back(std::move(scores));
    }
  }

  std::optional<double> sperf(const GroupScores& scores) const {
    if (!scores.unscorable.empty() || scores.outcomes.empty()) return std::nullopt;
    return score::model_sperf(scores.outcomes);
  }

  ScoreRow fixed_row(const std::string& name,
                     const record::EvaluationResult* TaskEvaluations::*which) {
    ScoreRow row{.implementation = name, .config = "", .correct = 0,
                 .tasks = static_cast<int>(report_.tasks.size()), .sperf = std::nullopt,
                 .tasks_without_run = {}};
    std::vector<score::TaskOutcome> outcomes;
    for (const auto& task : report_.tasks) {
      const TaskEvaluations& fixed = tasks_.at(task);
      const record::EvaluationResult* evaluation = fixed.*which;
      if (evaluation == nullptr) row.tasks_without_run.push_back(task);
      outcomes.push_back(outcome(task, evaluation, *fixed.baseline, nullptr));
      if (score::task_passes(outcomes.back())) ++row.correct;
    }
    if (!outcomes.empty()) row.sperf = score::model_sperf(outcomes);
    return row;
  }

  void fill_table1() {
    Table1& table = report_.table1;
    if (report_.tasks.empty()) return;
    table.rows.push_back(fixed_row("PyTorch reference", &TaskEvaluations::reference));
    table.rows.push_back(fixed_row("Baseline", &TaskEvaluations::baseline));
    table.rows.push_back(fixed_row("Expert", &TaskEvaluations::expert));
    for (const auto& row : table.rows) {
      for (const auto& task : row.tasks_without_run) {
        const std::string kind = row.implementation == "Expert" ? "expert" : "reference";
        table.missing.push_back(
            {fmt::format("task {} has no {} evaluation{} (counted as failed)", task, kind,
                         kind == "expert" ? " that passed" : ""),
             fmt::format("d2k eval {} --impl {}", task, kind)});
      }
    }
    std::map<std::string, ScoreRow> overall;
    std::map<std::string, std::vector<double>> model_scores;
    std::set<std::string> overall_unscorable;
    for (const GroupScores& scores : scored_) {
      const RunGroup& group = *scores.group;
      ScoreRow row{.implementation = group.model, .config = group.config, .correct = 0,
                   .tasks = static_cast<int>(report_.tasks.size()), .sperf = sperf(scores),
                   .tasks_without_run = scores.without_run};
      for (const auto& task : scores.outcomes) row.correct += score::task_passes(task) ? 1 : 0;
      ScoreRow& total = overall[group.config];
      total.implementation = "Overall";
      total.config = group.config;
      total.correct += row.correct;
      total.tasks += row.tasks;
      if (row.sperf) {
        model_scores[group.config].push_back(*row.sperf);
      } else {
        overall_unscorable.insert(group.config);
      }
      table.rows.push_back(std::move(row));
    }
    for (auto& [config, total] : overall) {
      if (!overall_unscorable.contains(config)) {
        total.sperf = score::overall_sperf(model_scores.at(config));
      }
    }
    std::vector<ScoreRow> totals;
    for (auto& [config, total] : overall) totals.push_back(std::move(total));
    std::stable_sort(totals.begin(), totals.end(), [](const ScoreRow& a, const ScoreRow& b) {
      return config_rank(a.config) < config_rank(b.config);
    });
    table.overall = std::move(totals);
    if (scored_.empty()) {
      table.missing.push_back({"no agent runs: only the fixed implementations are scored",
                               fmt::format("{} (one run per task, model and configuration)",
                                           kAgentCommand)});
    }
  }

  // The newest assessment of `kind` for the task whose candidate matches, with scores.
  const record::JudgeAssessment* assessment(const std::string& task, record::JudgeKind kind,
                                            const auto& matches) {
    if (!assessments_) {
      assessments_ = store_.judge_assessments().list({.task = std::nullopt, .kind = std::nullopt,
                                                    .status = record::JudgeStatus::verified,
                                                    .limit = 0});
    }
    for (const auto& a : *assessments_) {  // newest first
      if (a.task_id == task && a.kind == kind && a.levels.size() == 3 && matches(a)) return &a;
    }
    return nullptr;
  }

  static std::array<double, 3> as_array(const score::LevelScores& levels) {
    return {levels.l1, levels.l2, levels.l3};
  }

  static score::LevelScores level_scores(const record::JudgeAssessment& a) {
    return {.l1 = a.levels[0].score, .l2 = a.levels[1].score, .l3 = a.levels[2].score};
  }

  void fill_table2() {
    Table2& table = report_.table2;
    if (report_.tasks.empty()) return;
    if (groups_.empty()) {
      table.design_missing.push_back(
          {"no agent runs, so no designs to judge",
           fmt::format("{} --config design", kAgentCommand)});
      table.missing.push_back({"no agent runs, so no final submissions to judge", kAgentCommand});
      return;
    }
    fill_design_rows();
    for (const GroupScores& scores : scored_) {
      const RunGroup& group = *scores.group;
      ImplRow row{.model = group.model, .config = group.config, .levels = std::nullopt,
                  .js_impl = std::nullopt, .sperf = sperf(scores),
                  .tasks_without_assessment = {}};
      std::vector<score::JudgedImplementation> judged;
      for (const auto& task : scores.outcomes) {
        if (!score::task_passes(task)) {
          judged.push_back({.levels = {}, .correct = false});
          continue;
        }
        const record::EvaluationResult* final_submission =
            evaluation(*group.run_by_task.at(task.task_id)->final_evaluation_id);
        const auto* a = assessment(task.task_id, record::JudgeKind::impl,
                                   [&](const record::JudgeAssessment& candidate) {
                                     return candidate.candidate_hash ==
                                            final_submission->impl_hash;
                                   });
        if (a == nullptr) {
          row.tasks_without_assessment.push_back(task.task_id);
          table.missing.push_back(
              {fmt::format("no verified judge assessment of {}'s final submission for {}",
                           group_label(group.model, group.config), task.task_id),
               fmt::format("d2k judge impl {} --solution {}", task.task_id,
                           final_submission->impl_path)});
          continue;
        }
        judged.push_back({.levels = level_scores(*a), .correct = true});
      }
      if (row.tasks_without_assessment.empty() && scores.unscorable.empty()) {
        row.levels = as_array(score::model_impl_levels(judged));
        row.js_impl = score::model_js_impl(judged);
      }
      table.impl.push_back(std::move(row));
    }
    add_impl_averages();
  }

  void fill_design_rows() {
    Table2& table = report_.table2;
    for (const auto& model : models_) {
      const RunGroup* design = nullptr;
      for (const auto& group : groups_) {
        if (group.model == model && group.config == kDesignConfig) design = &group;
      }
      DesignRow row{.model = model, .levels = std::nullopt, .js_design = std::nullopt,
                    .tasks_without_assessment = {}};
      std::vector<score::LevelScores> proposals;
      for (const auto& task : report_.tasks) {
        const record::JudgeAssessment* a = nullptr;
        if (design != nullptr && design->run_by_task.contains(task)) {
          const std::filesystem::path workspace = design->run_by_task.at(task)->workspace;
          a = assessment(task, record::JudgeKind::design,
                         [&](const record::JudgeAssessment& candidate) {
                           return path_is_under(candidate.candidate_path, workspace);
                         });
        }
        if (a == nullptr) {
          row.tasks_without_assessment.push_back(task);
        } else {
          proposals.push_back(level_scores(*a));
        }
      }
      if (row.tasks_without_assessment.empty()) {
        row.levels = as_array(score::level_means(proposals));
        row.js_design = score::model_js_design(proposals);
      } else {
        table.design_missing.push_back(
            {fmt::format("{}: {} of {} tasks have no verified design assessment from a `design` "
                         "run",
                         model, row.tasks_without_assessment.size(), report_.tasks.size()),
             fmt::format("{} --config design, then d2k judge design TASK --design FILE",
                         kAgentCommand)});
      }
      table.design.push_back(std::move(row));
    }
  }

  // The "Average" rows: level means and JS over models, S_perf as the overall GM.
  void add_impl_averages() {
    Table2& table = report_.table2;
    std::map<std::string, std::vector<const ImplRow*>> by_config;
    for (const auto& row : table.impl) by_config[row.config].push_back(&row);
    std::vector<ImplRow> averages;
    for (const auto& [config, rows] : by_config) {
      ImplRow average{.model = "Average", .config = config, .levels = std::nullopt,
                      .js_impl = std::nullopt, .sperf = std::nullopt,
                      .tasks_without_assessment = {}};
      std::vector<score::LevelScores> levels;
      std::vector<double> js_values;
      std::vector<double> sperfs;
      for (const ImplRow* row : rows) {
        if (row->levels) {
          levels.push_back({.l1 = (*row->levels)[0], .l2 = (*row->levels)[1],
                            .l3 = (*row->levels)[2]});
          js_values.push_back(*row->js_impl);
        }
        if (row->sperf) sperfs.push_back(*row->sperf);
      }
      if (levels.size() == rows.size()) {
        average.levels = as_array(score::level_means(levels));
        average.js_impl = score::overall_js(js_values);
      }
      if (sperfs.size() == rows.size()) average.sperf = score::overall_sperf(sperfs);
      averages.push_back(std::move(average));
    }
    std::stable_sort(averages.begin(), averages.end(), [](const ImplRow& a, const ImplRow& b) {
      return config_rank(a.config) < config_rank(b.config);
    });
    for (auto& average : averages) table.impl.push_back(std::move(average));
  }

  void fill_table4() {
    Table4& table = report_.table4;
    if (report_.tasks.empty()) return;
    for (const GroupScores& scores : scored_) {
      const bool all_pass =
          scores.unscorable.empty() &&
          std::all_of(scores.outcomes.begin(), scores.outcomes.end(), score::task_passes);
      const std::string label = group_label(scores.group->model, scores.group->config);
      if (!all_pass) {
        table.not_fully_correct.push_back(label);
        continue;
      }
      table.rows.push_back({.implementation = scores.group->model,
                            .config = scores.group->config,
                            .correct = static_cast<int>(scores.outcomes.size()),
                            .speedup = score::model_speedup(scores.outcomes)});
    }
    std::vector<score::TaskOutcome> expert;
    for (const auto& task : report_.tasks) {
      const TaskEvaluations& fixed = tasks_.at(task);
      expert.push_back(outcome(task, fixed.expert, *fixed.baseline, nullptr));
    }
    if (std::all_of(expert.begin(), expert.end(), score::task_passes)) {
      table.rows.push_back({.implementation = "Expert", .config = "",
                            .correct = static_cast<int>(expert.size()),
                            .speedup = score::model_speedup(expert)});
    } else {
      table.not_fully_correct.push_back("Expert");
    }
    if (scored_.empty()) {
      table.missing.push_back({"no agent runs: only the expert can be listed", kAgentCommand});
    }
  }

  void fill_table5() {
    Table5& table = report_.table5;
    std::copy(score::kFastThresholds.begin(), score::kFastThresholds.end(),
              table.thresholds.begin());
    if (report_.tasks.empty()) return;
    if (scored_.empty()) {
      table.missing.push_back({"no agent runs to count", kAgentCommand});
      return;
    }
    std::map<std::string, std::vector<score::TaskOutcome>> pooled;
    const auto fast_row = [](const std::string& name, const std::string& config,
                             const std::vector<score::TaskOutcome>& outcomes) {
      FastRow row{.implementation = name, .config = config, .fast = {}};
      for (size_t i = 0; i < score::kFastThresholds.size(); ++i) {
        row.fast[i] = score::fast_p(outcomes, score::kFastThresholds[i]);
      }
      return row;
    };
    for (const GroupScores& scores : scored_) {
      if (!scores.unscorable.empty()) continue;  // reported under Table 1's missing baselines
      table.rows.push_back(fast_row(scores.group->model, scores.group->config, scores.outcomes));
      auto& all = pooled[scores.group->config];
      all.insert(all.end(), scores.outcomes.begin(), scores.outcomes.end());
    }
    std::vector<FastRow> overall;
    for (const auto& [config, outcomes] : pooled) {
      overall.push_back(fast_row("Overall", config, outcomes));
    }
    std::stable_sort(overall.begin(), overall.end(), [](const FastRow& a, const FastRow& b) {
      return config_rank(a.config) < config_rank(b.config);
    });
    for (auto& row : overall) table.rows.push_back(std::move(row));
  }

  void fill_table6() {
    Table6& table = report_.table6;
    if (groups_.empty()) {
      table.missing.push_back({"no agent runs, so no token counts or costs", kAgentCommand});
      return;
    }
    std::map<std::string, UsageRow> totals;
    for (const RunGroup& group : groups_) {
      UsageRow row{.model = group.model, .config = group.config};
      // The runs every other table reads: the newest per task.
      for (const auto& [task, run] : group.run_by_task) {
        ++row.runs;
        if (!run->prompt_tokens || !run->completion_tokens || !run->cost_usd) {
          ++row.runs_without_usage;
        }
        row.prompt_tokens += run->prompt_tokens.value_or(0);
        row.completion_tokens += run->completion_tokens.value_or(0);
        row.cost_usd += run->cost_usd.value_or(0.0);
      }
      UsageRow& total = totals[group.model];
      total.model = group.model;
      total.config = "total";
      total.runs += row.runs;
      total.runs_without_usage += row.runs_without_usage;
      total.prompt_tokens += row.prompt_tokens;
      total.completion_tokens += row.completion_tokens;
      total.cost_usd += row.cost_usd;
      table.rows.push_back(row);
      const bool last_of_model = &group == &groups_.back() || (&group + 1)->model != group.model;
      if (last_of_model) table.rows.push_back(totals.at(group.model));
      if (row.runs_without_usage > 0) {
        table.missing.push_back(
            {fmt::format("{} of {} runs of {} recorded no tokens or cost (summed as 0)",
                         row.runs_without_usage, row.runs,
                         group_label(group.model, group.config)),
             fmt::format("{} with an agent that reports its usage", kAgentCommand)});
      }
    }
  }

  void fill_figure3() {
    Figure3& figure = report_.figure3;
    if (report_.tasks.empty()) return;
    bool have_experts = true;
    for (const auto& task : report_.tasks) {
      if (tasks_.at(task).expert == nullptr) {
        have_experts = false;
        figure.missing.push_back({fmt::format("task {} has no passed expert evaluation", task),
                                  fmt::format("d2k eval {} --impl expert", task)});
      }
    }
    bool any = false;
    for (const GroupScores& scores : scored_) {
      if (!is_guidance_config(scores.group->config) || !scores.unscorable.empty()) continue;
      any = true;
      if (!have_experts) continue;
      figure.bars.push_back({.model = scores.group->model,
                             .config = scores.group->config,
                             .percent = score::expert_relative_percent(scores.outcomes)});
    }
    if (!any) {
      figure.missing.push_back({"no agent runs under none, L1, L1+L2 or L1+L2+L3",
                                fmt::format("{} --config L1 (and the other configurations)",
                                            kAgentCommand)});
    }
  }

  void fill_figure4() {
    Figure4& figure = report_.figure4;
    if (report_.tasks.empty()) return;
    for (const GroupScores& scores : scored_) {
      const RunGroup& group = *scores.group;
      std::vector<std::vector<score::Submission>> tasks;
      int last_turn = 0;
      size_t submissions = 0;
      for (const auto& task : report_.tasks) {
        std::vector<score::Submission>& task_submissions = tasks.emplace_back();
        const auto it = group.run_by_task.find(task);
        if (it == group.run_by_task.end()) continue;
        const store::AgentRun& run = *it->second;
        last_turn = std::max(last_turn, run.turn_budget);
        for (const auto& event : agents_.scored_submissions(run.id)) {
          const record::EvaluationResult* submitted = evaluation(*event.evaluation_id);
          const record::EvaluationResult* baseline = baseline_for(run, submitted);
          score::Submission s{.turn = event.turn, .eligible = false, .task_score = 0.0};
          if (baseline != nullptr && baseline->passed()) {
            const score::TaskOutcome o = outcome(task, submitted, *baseline, nullptr);
            if (score::task_passes(o)) {
              s.eligible = true;
              s.task_score = score::task_speedup(o);
            }
          }
          last_turn = std::max(last_turn, event.turn);
          task_submissions.push_back(s);
          ++submissions;
        }
      }
      if (submissions == 0) {
        figure.missing.push_back(
            {fmt::format("no scored submission events for {}", group_label(group.model,
                                                                           group.config)),
             fmt::format("{} (it records each submit with its evaluation and turn)",
                         kAgentCommand)});
        continue;
      }
      figure.series.push_back({.model = group.model,
                               .config = group.config,
                               .sperf_by_turn = score::model_trajectory(tasks, last_turn)});
    }
    if (scored_.empty()) {
      figure.missing.push_back({"no agent runs, so no submissions over turns", kAgentCommand});
    }
  }

  void fill_task_views() {
    for (const auto& task : report_.tasks) {
      const TaskEvaluations& fixed = tasks_.at(task);
      TaskView view;
      view.task_id = task;
      view.device = fixed.baseline->environment.device_name;
      std::vector<std::pair<std::string, const record::EvaluationResult*>> shown = {
          {"reference", fixed.reference}, {"baseline", fixed.baseline}, {"expert", fixed.expert}};
      for (const GroupScores& scores : scored_) {
        const auto it = scores.group->run_by_task.find(task);
        if (it == scores.group->run_by_task.end() || !it->second->final_evaluation_id) continue;
        shown.emplace_back(group_label(scores.group->model, scores.group->config),
                           evaluation(*it->second->final_evaluation_id));
      }
      // The newest `d2k eval --solution`, unless it is an agent's final submission shown above.
      if (std::none_of(shown.begin(), shown.end(),
                       [&](const auto& entry) { return entry.second == fixed.solution; })) {
        shown.emplace_back("solution", fixed.solution);
      }
      for (const auto& w : fixed.baseline->workloads) {
        view.workloads.push_back(w.workload);
        std::optional<double> t_sol;
        for (const auto& [label, shown_evaluation] : shown) {
          if (shown_evaluation == nullptr || t_sol) continue;
          const record::WorkloadResult* found = find_workload(*shown_evaluation, w.workload);
          if (found != nullptr && found->sol && found->sol->t_sol_s > 0.0) {
            t_sol = found->sol->t_sol_s;
          }
        }
        view.t_sol_s.push_back(t_sol);
      }
      for (const auto& [label, shown_evaluation] : shown) {
        if (shown_evaluation == nullptr) continue;
        ImplementationTimings timings{.label = label,
                                      .evaluation_id = shown_evaluation->id,
                                      .passed = shown_evaluation->passed(),
                                      .latency_s = {}};
        for (const auto& workload : view.workloads) {
          timings.latency_s.push_back(valid_latency(shown_evaluation, workload));
        }
        view.implementations.push_back(std::move(timings));
      }
      if (fixed.reference == nullptr) {
        view.missing.push_back(
            {"no reference evaluation", fmt::format("d2k eval {} --impl reference", task)});
      }
      if (fixed.expert == nullptr) {
        view.missing.push_back(
            {"no passed expert evaluation", fmt::format("d2k eval {} --impl expert", task)});
      }
      if (std::none_of(view.t_sol_s.begin(), view.t_sol_s.end(),
                       [](const auto& t) { return t.has_value(); })) {
        view.missing.push_back(
            {"no SOL: no evaluation of this task recorded T_SOL",
             fmt::format("d2k doctor (measures the device's ceilings), then d2k eval {} --impl "
                         "baseline --no-cache",
                         task)});
      }
      report_.task_views.push_back(std::move(view));
    }
  }

  const store::Store& store_;
  const store::AgentStore& agents_;
  const ReportFilter& filter_;
  Report report_;
  std::map<int64_t, record::EvaluationResult> loaded_;
  std::vector<store::AgentRun> runs_;
  std::map<std::string, TaskEvaluations> tasks_;
  std::vector<RunGroup> groups_;
  std::vector<std::string> models_;
  std::vector<GroupScores> scored_;
  std::optional<std::vector<record::JudgeAssessment>> assessments_;
};

}  // namespace

Report build_report(const store::Store& store, const store::AgentStore& agents,
                    const ReportFilter& filter) {
  return Builder(store, agents, filter).build();
}

}  // namespace d2k::report
