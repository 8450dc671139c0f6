#pragma once
// A store built in code for the report tests: two tasks on one device with reference, baseline,
// expert and solution evaluations, two models' agent runs with submissions, and judge rows.
// Latencies are chosen so every score has a value that can be worked out by hand (listed with
// each test's expectations).

#include <stdlib.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "record/judge_assessment.h"
#include "record/result.h"
#include "store/database.h"
#include "store/store.h"
#include "util/temp_dir.h"

namespace d2k::report::testing {

// A fresh folder that disappears with the object.
using ScratchDir = util::TempDir;

// One workload of a fixture evaluation: latency in milliseconds, a failing verdict when
// `passed` is false, and T_SOL in milliseconds when given.
struct FixtureWorkload {
  std::string name;
  double latency_ms = 0.0;
  bool passed = true;
  std::optional<double> t_sol_ms;
};

class FixtureStore {
 public:
  explicit FixtureStore(const std::filesystem::path& path)
      : path_(path), store_(store::Store::open(path)), db_(path) {}

  const std::filesystem::path& path() const { return path_; }
  store::Store& store() { return store_; }

  int64_t evaluation(const std::string& task, const std::string& kind,
                     const std::vector<FixtureWorkload>& workloads,
                     const std::string& device = "NVIDIA H200") {
    record::EvaluationResult result;
    result.created_at = next_time();
    result.task_id = task;
    result.impl_kind = kind;
    result.impl_path = "/work/" + task + "/" + kind + std::to_string(++counter_) + ".py";
    result.impl_hash = "hash" + std::to_string(counter_);
    result.device = "cuda";
    result.environment.device_name = device;
    for (const auto& w : workloads) {
      record::WorkloadResult r;
      r.workload = w.name;
      r.verdict = w.passed ? record::Verdict::passed : record::Verdict::incorrect;
      r.reason_code = w.passed ? "" : "output_mismatch";
      if (w.passed) {
        record::Latency latency;
        latency.method = "events";
        latency.mean_s = w.latency_ms * 1e-3;
        latency.min_s = latency.max_s = latency.mean_s;
        latency.calls_per_sample = 1;
        latency.samples_s = {latency.mean_s};
        r.latency = latency;
      }
      if (w.t_sol_ms) {
        record::SpeedOfLight sol;
        sol.t_sol_s = *w.t_sol_ms * 1e-3;
        sol.fraction = w.passed ? sol.t_sol_s / (w.latency_ms * 1e-3) : sol.fraction;
        r.sol = sol;
      }
      result.workloads.push_back(r);
    }
    return store_.evaluations().save(result);
  }

  int64_t run(const std::string& task, const std::string& config, const std::string& model,
              std::optional<int64_t> final_evaluation, const std::string& workspace,
              std::optional<int64_t> prompt_tokens, std::optional<int64_t> completion_tokens,
              std::optional<double> cost_usd, int turn_budget = 4) {
    store::Statement insert = db_.prepare(
        "INSERT INTO agent_runs (created_at, task_id, config, agent, model, workspace, "
        "turn_budget, turns_used, turn_source, status, prompt_tokens, completion_tokens, "
        "cost_usd, final_evaluation_id) "
        "VALUES (?1, ?2, ?3, 'fixture-agent', ?4, ?5, ?6, ?6, 'fixture', 'finished', ?7, ?8, ?9, "
        "?10)");
    insert.bind_text(1, next_time());
    insert.bind_text(2, task);
    insert.bind_text(3, config);
    insert.bind_text(4, model);
    insert.bind_text(5, workspace);
    insert.bind_int(6, turn_budget);
    prompt_tokens ? insert.bind_int(7, *prompt_tokens) : insert.bind_null(7);
    completion_tokens ? insert.bind_int(8, *completion_tokens) : insert.bind_null(8);
    cost_usd ? insert.bind_double(9, *cost_usd) : insert.bind_null(9);
    final_evaluation ? insert.bind_int(10, *final_evaluation) : insert.bind_null(10);
    insert.step();
    return db_.last_insert_rowid();
  }

  void event(int64_t run, int turn, const std::string& kind, std::optional<int64_t> evaluation) {
    store::Statement insert = db_.prepare(
        "INSERT INTO agent_events (run_id, seq, at, turn, kind, tool, payload_json, "
        "evaluation_id) VALUES (?1, ?2, ?3, ?4, ?5, 'submit', '{}', ?6)");
    insert.bind_int(1, run);
    insert.bind_int(2, ++seq_);
    insert.bind_text(3, next_time());
    insert.bind_int(4, turn);
    insert.bind_text(5, kind);
    evaluation ? insert.bind_int(6, *evaluation) : insert.bind_null(6);
    insert.step();
  }

  // A verified assessment with the three level scores, of the candidate at `path` with `hash`.
  void assessment(const std::string& task, record::JudgeKind kind, const std::string& path,
                  const std::string& hash, double l1, double l2, double l3,
                  record::JudgeStatus status = record::JudgeStatus::verified) {
    record::JudgeAssessment a;
    a.created_at = next_time();
    a.task_id = task;
    a.kind = kind;
    a.candidate_path = path;
    a.candidate_hash = hash;
    a.model = "judge-model";
    a.status = status;
    const char* ids[] = {"L1", "L2", "L3"};
    const double scores[] = {l1, l2, l3};
    for (int i = 0; i < 3; ++i) a.levels.push_back({.id = ids[i], .score = scores[i]});
    a.js = (l1 + l2 + l3) / 3.0;
    store_.judge_assessments().save(a);
  }

 private:
  // Strictly increasing timestamps, so "newest" is the order of the calls.
  std::string next_time() {
    ++clock_;
    return "2026-01-01T00:" + std::string(clock_ < 10 ? "0" : "") + std::to_string(clock_ / 60) +
           ":" + (clock_ % 60 < 10 ? "0" : "") + std::to_string(clock_ % 60) + "Z";
  }

  std::filesystem::path path_;
  store::Store store_;
  store::Database db_;
  int counter_ = 0;
  int seq_ = 0;
  int clock_ = 0;
};

// The paper-shaped fixture. Device H200; all latencies in ms.
//
// alpha (a1, a2): baseline 2, 8 (T_SOL 0.25, 1); reference 4, 16; expert 0.5, 2; an older
//   baseline on A100 of 1, 1; a solution 3, 3.
// beta (b1, b2): baseline 1, 1 (no SOL); reference 2, 2; expert 1, 1.
// m-one, none:      alpha 1, 4 (x2; an older run failed); beta fails on b2.
// m-one, L1+L2+L3:  alpha 0.5, 2 (x4); beta 0.5, 0.5 (x2). Submissions: alpha turn 1 (failed),
//                   turn 3 (final); beta turn 2 (final). Turn budget 4.
// m-one, design:    alpha and beta, workspaces /ws/m-one/<task>-design.
// m-two, none:      alpha 2, 8 (x1); no run for beta.
// Judge: m-one none alpha 60/30/30; m-one L1+L2+L3 alpha 90/60/60, beta 80/80/50;
//   designs alpha 70/50/30, beta 50/50/50 (under the design workspaces); m-two unjudged.
// Usage: m-one none 1000+3000 prompt, 200+400 completion, 1.5+2.25 US$; m-one L1+L2+L3 5000,
//   500, 5.0 and one run without usage; m-one design 100, 50, 0.1 each; m-two 2000, 100, 1.0.
inline void fill_paper_fixture(FixtureStore& f) {
  using record::JudgeKind;
  f.evaluation("alpha", "baseline", {{"a1", 1.0}, {"a2", 1.0}}, "NVIDIA A100");
  f.evaluation("alpha", "reference", {{"a1", 4.0}, {"a2", 16.0}});
  f.evaluation("alpha", "baseline",
               {{"a1", 2.0, true, 0.25}, {"a2", 8.0, true, 1.0}});
  f.evaluation("alpha", "expert", {{"a1", 0.5}, {"a2", 2.0}});
  f.evaluation("beta", "reference", {{"b1", 2.0}, {"b2", 2.0}});
  f.evaluation("beta", "baseline", {{"b1", 1.0}, {"b2", 1.0}});
  f.evaluation("beta", "expert", {{"b1", 1.0}, {"b2", 1.0}});

  const int64_t old_none_alpha =
      f.evaluation("alpha", "solution", {{"a1", 1.0, false}, {"a2", 1.0}});
  f.run("alpha", "none", "m-one", old_none_alpha, "/ws/m-one/alpha-old", 10, 10, 0.01);
  const int64_t none_alpha = f.evaluation("alpha", "solution", {{"a1", 1.0}, {"a2", 4.0}});
  const int64_t none_beta = f.evaluation("beta", "solution", {{"b1", 0.5}, {"b2", 0.5, false}});
  f.run("alpha", "none", "m-one", none_alpha, "/ws/m-one/alpha-none", 1000, 200, 1.5);
  f.run("beta", "none", "m-one", none_beta, "/ws/m-one/beta-none", 3000, 400, 2.25);

  const int64_t guided_alpha_first =
      f.evaluation("alpha", "solution", {{"a1", 0.1, false}, {"a2", 0.1}});
  const int64_t guided_alpha = f.evaluation("alpha", "solution", {{"a1", 0.5}, {"a2", 2.0}});
  const int64_t guided_beta = f.evaluation("beta", "solution", {{"b1", 0.5}, {"b2", 0.5}});
  const int64_t run_alpha = f.run("alpha", "L1+L2+L3", "m-one", guided_alpha,
                                  "/ws/m-one/alpha-guided", 5000, 500, 5.0);
  const int64_t run_beta = f.run("beta", "L1+L2+L3", "m-one", guided_beta,
                                 "/ws/m-one/beta-guided", std::nullopt, std::nullopt,
                                 std::nullopt);
  f.event(run_alpha, 0, "tool_call", std::nullopt);
  f.event(run_alpha, 1, "submission", guided_alpha_first);
  f.event(run_alpha, 3, "submission", guided_alpha);
  f.event(run_beta, 2, "submission", guided_beta);

  f.run("alpha", "design", "m-one", std::nullopt, "/ws/m-one/alpha-design", 100, 50, 0.1);
  f.run("beta", "design", "m-one", std::nullopt, "/ws/m-one/beta-design", 100, 50, 0.1);

  const int64_t two_alpha = f.evaluation("alpha", "solution", {{"a1", 2.0}, {"a2", 8.0}});
  f.run("alpha", "none", "m-two", two_alpha, "/ws/m-two/alpha-none", 2000, 100, 1.0);

  const auto hash_of = [&](int64_t id) { return f.store().evaluations().load(id)->impl_hash; };
  f.assessment("alpha", JudgeKind::impl, "/ws/m-one/alpha-none/solution.py", hash_of(none_alpha),
               60, 30, 30);
  f.assessment("alpha", JudgeKind::impl, "/ws/m-one/alpha-guided/solution.py",
               hash_of(guided_alpha), 90, 60, 60);
  f.assessment("beta", JudgeKind::impl, "/ws/m-one/beta-guided/solution.py",
               hash_of(guided_beta), 80, 80, 50);
  f.assessment("alpha", JudgeKind::design, "/ws/m-one/alpha-design/model_design.json", "d1", 70,
               50, 30);
  f.assessment("beta", JudgeKind::design, "/ws/m-one/beta-design/model_design.json", "d2", 50,
               50, 50);
  // Not verified, so it must not count for beta's design.
  f.assessment("beta", JudgeKind::design, "/ws/m-one/beta-design/model_design.json", "d2", 0, 0,
               0, record::JudgeStatus::unverified);
}

}  // namespace d2k::report::testing
