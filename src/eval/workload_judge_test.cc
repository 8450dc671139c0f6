#include "eval/workload_judge.h"

#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "protocol/messages.h"
#include "protocol/tensor_file.h"
#include "util/temp_dir.h"

namespace d2k::eval {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using nlohmann::json;

// Three correctness trials, the last timed call and the after-timing trial, as the evaluator
// expects them for correctness_trials = 3.
constexpr int kExpectedTrials = 5;

// What a worker reports for one call, in the shape of Worker::report's "trial" event.
struct TrialReport {
  int trial = 0;
  uint64_t seed = 0;
  std::string kind;
  json inputs_before;
  json inputs_after;
  std::vector<TensorFile> outputs;
  std::vector<TensorFile> state;

  protocol::Trial message() const {
    return protocol::decode<protocol::Trial>(json{{"event", "trial"},
            {"trial", trial},
            {"seed", seed},
            {"kind", kind},
            {"inputs_before", inputs_before},
            {"inputs_after", inputs_after},
            {"outputs", outputs},
            {"state", state}});
  }
};

protocol::TimingResult timed(record::Latency latency) {
  protocol::TimingResult result;
  result.latency = std::move(latency);
  return result;
}

record::Latency some_latency() {
  record::Latency latency;
  latency.method = "events";
  latency.mean_s = 2e-6;
  latency.min_s = 1.5e-6;
  latency.max_s = 2.5e-6;
  latency.calls_per_sample = 100;
  latency.samples_s = {1.5e-6, 2e-6, 2.5e-6};
  return latency;
}

class WorkloadJudgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    task_.id = "scale_add";
    task_.evaluation.arguments = {"x", "y", "alpha"};
    task_.evaluation.outputs = {"out"};
    task_.input_rules.static_inputs = {"alpha"};
    task_.input_rules.dynamic_inputs = {"x", "y"};
    task_.tolerance.rel_norm_rtol = 1e-6;
    task_.tolerance.atol = 1e-6;
    task_.tolerance.rtol = 1e-6;
  }
  // A stateful task: run(state, x, decay) updates state in place.
  void make_stateful() {
    task_.evaluation.arguments = {"state", "x", "decay"};
    task_.evaluation.outputs = {"row_sum"};
    task_.input_rules.static_inputs = {"decay"};
    task_.input_rules.dynamic_inputs = {"state", "x"};
    task_.input_rules.mutable_inputs = {"state"};
  }
  bool stateful() const { return !task_.input_rules.mutable_inputs.empty(); }

  TensorFile f32(const std::string& name, const std::vector<float>& values) {
    TensorFile file{name, "float32", {static_cast<int64_t>(values.size())}, false,
                    dir_ / ("t" + std::to_string(counter_++) + ".bin")};
    std::vector<std::byte> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    protocol::write_bytes(file.path, bytes);
    return file;
  }

  // The true output and state of trial `t`, distinct per trial.
  std::vector<float> output_values(int t) const { return {1.0f + t, 2.0f, 3.0f}; }
  std::vector<float> state_values(int t) const { return {0.5f, 0.25f * t, 4.0f}; }

  json digests(int t) const {
    const std::string suffix = std::to_string(t);
    if (stateful()) {
      return {{"state", "s" + suffix}, {"x", "x" + suffix}, {"decay", "repr:0.9"}};
    }
    return {{"x", "x" + suffix}, {"y", "y" + suffix}, {"alpha", "repr:1.5"}};
  }

  // The report of a correct implementation for trial `t` (the reference, or a good candidate).
  TrialReport correct(int t, const std::string& kind) {
    TrialReport report;
    report.trial = t;
    report.seed = 1000 + t;
    report.kind = kind;
    report.inputs_before = digests(t);
    report.inputs_after = digests(t);
    if (stateful()) report.inputs_after["state"] = "s" + std::to_string(t) + "-updated";
    report.outputs = {f32(task_.evaluation.outputs[0], output_values(t))};
    if (stateful()) report.state = {f32("state:state", state_values(t))};
    return report;
  }

  void feed_reference(WorkloadJudge& judge) {
    const char* kinds[] = {"fresh", "same_buffers", "fresh", "after_timing"};
    for (int t = 0; t < 4; ++t) judge.add_reference_trial(correct(t, kinds[t]).message());
  }

  // The candidate's reports in the order the worker sends them.
  std::vector<TrialReport> good_candidate() {
    return {correct(0, "fresh"), correct(1, "same_buffers"), correct(2, "fresh"),
            correct(2, "last_timed_call"), correct(3, "after_timing")};
  }

  void feed(WorkloadJudge& judge, const std::vector<TrialReport>& reports) {
    for (const auto& report : reports) judge.add_candidate_trial(report.message());
  }

  task::Task task_;
  util::TempDir temp_{"d2k-judge-"};
  fs::path dir_ = temp_.path();
  int counter_ = 0;
};

TEST_F(WorkloadJudgeTest, AllTrialsCorrectWithLatencyPasses) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  feed(judge, good_candidate());
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(1.25);

  EXPECT_FALSE(judge.failed());
  EXPECT_EQ(result.verdict, record::Verdict::passed);
  EXPECT_EQ(result.reason_code, "");
  EXPECT_EQ(result.workload, "small");
  EXPECT_EQ(result.wall_seconds, 1.25);
  ASSERT_TRUE(result.latency.has_value());
  EXPECT_EQ(result.latency->mean_s, 2e-6);
  EXPECT_EQ(result.latency->samples_s.size(), 3u);
  ASSERT_EQ(result.trials.size(), static_cast<size_t>(kExpectedTrials));
  const std::vector<std::string> kinds{"fresh", "same_buffers", "fresh", "last_timed_call",
                                       "after_timing"};
  for (size_t i = 0; i < result.trials.size(); ++i) {
    EXPECT_TRUE(result.trials[i].passed) << i;
    EXPECT_EQ(result.trials[i].kind, kinds[i]);
    ASSERT_EQ(result.trials[i].outputs.size(), 1u);
    EXPECT_TRUE(result.trials[i].outputs[0].passed);
  }
  EXPECT_EQ(result.trials[1].seed, 1001u);
}

TEST_F(WorkloadJudgeTest, FirstFailureWinsOverLaterOnes) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  reports[0].inputs_after["x"] = "x0-doubled";            // trial 0 mutates x
  reports[1].outputs = {f32("out", {9.0f, 9.0f, 9.0f})};  // trial 1 is also wrong
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::invalid);
  EXPECT_EQ(result.reason_code, "input_mutated");
  EXPECT_THAT(result.message, HasSubstr("trial 0"));
  EXPECT_THAT(result.message, HasSubstr("input x"));
  EXPECT_FALSE(result.latency.has_value());
  // The later trials are still recorded as evidence.
  ASSERT_EQ(result.trials.size(), static_cast<size_t>(kExpectedTrials));
  EXPECT_FALSE(result.trials[0].passed);
  EXPECT_FALSE(result.trials[1].passed);
  EXPECT_TRUE(result.trials[2].passed);
}

TEST_F(WorkloadJudgeTest, OutputMismatchBeforeAMutationIsTheVerdict) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  reports[1].outputs = {f32("out", {9.0f, 9.0f, 9.0f})};
  reports[2].inputs_after["y"] = "y2-zeroed";
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::incorrect);
  EXPECT_EQ(result.reason_code, "output_mismatch");
  EXPECT_THAT(result.message, HasSubstr("trial 1 (same_buffers)"));
}

TEST_F(WorkloadJudgeTest, InputsDifferingFromTheReferencesAreInvalid) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  reports[2].inputs_before["y"] = "y-from-another-seed";
  reports[2].inputs_after["y"] = "y-from-another-seed";
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::invalid);
  EXPECT_EQ(result.reason_code, "inputs_differ");
  EXPECT_THAT(result.message, HasSubstr("input y"));
}

TEST_F(WorkloadJudgeTest, ChangedScalarInputReprIsAMutation) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  reports[3].inputs_after["alpha"] = "repr:2.0";
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.reason_code, "input_mutated");
  EXPECT_THAT(result.message, HasSubstr("last_timed_call"));
}

TEST_F(WorkloadJudgeTest, WrongStateIsAStateMismatch) {
  make_stateful();
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  reports[0].state = {f32("state:state", {7.0f, 7.0f, 7.0f})};  // right output, stale state
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::incorrect);
  EXPECT_EQ(result.reason_code, "state_mismatch");
  EXPECT_THAT(result.message, HasSubstr("state:state"));
  ASSERT_FALSE(result.trials.empty());
  EXPECT_FALSE(result.trials[0].passed);
  // The output and the state each have a check.
  ASSERT_EQ(result.trials[0].outputs.size(), 2u);
  EXPECT_TRUE(result.trials[0].outputs[0].passed);
  EXPECT_FALSE(result.trials[0].outputs[1].passed);
}

TEST_F(WorkloadJudgeTest, MutableInputMayChangeDuringTheCall) {
  make_stateful();
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  const auto reports = good_candidate();
  ASSERT_NE(reports[0].inputs_after["state"], reports[0].inputs_before["state"]);
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::passed) << result.message;
}

TEST_F(WorkloadJudgeTest, ReadOnlyInputBesideAMutableOneMayNotChange) {
  make_stateful();
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  reports[4].inputs_after["x"] = "x3-zeroed";
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::invalid);
  EXPECT_EQ(result.reason_code, "input_mutated");
  EXPECT_THAT(result.message, HasSubstr("after_timing"));
}

TEST_F(WorkloadJudgeTest, MissingStateTensorIsAStateCountFailure) {
  make_stateful();
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  reports[0].state.clear();
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::incorrect);
  EXPECT_EQ(result.reason_code, "state_count");
}

TEST_F(WorkloadJudgeTest, ExtraOutputIsAnOutputCountFailure) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  reports[0].outputs.push_back(f32("out", output_values(0)));
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::incorrect);
  EXPECT_EQ(result.reason_code, "output_count");
}

TEST_F(WorkloadJudgeTest, StaleResultAfterTimingIsAnOutputMismatch) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  reports[4].outputs = {f32("out", output_values(2))};  // trial 2's answer, cached
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::incorrect);
  EXPECT_EQ(result.reason_code, "output_mismatch");
  EXPECT_THAT(result.message, HasSubstr("trial 3 (after_timing)"));
}

TEST_F(WorkloadJudgeTest, NaNOutputIsNonfinite) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  reports[0].outputs = {f32("out", {std::numeric_limits<float>::quiet_NaN(), 2.0f, 3.0f})};
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::incorrect);
  EXPECT_EQ(result.reason_code, "nonfinite");
}

TEST_F(WorkloadJudgeTest, TruncatedTensorFileIsAHarnessError) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  TensorFile truncated = f32("out", {1.0f, 2.0f});
  truncated.shape = {3};  // says three elements, holds two
  reports[0].outputs = {truncated};
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::harness_error);
  EXPECT_EQ(result.reason_code, "harness_error");
}

TEST_F(WorkloadJudgeTest, CandidateTrialWithoutReferenceIsAHarnessError) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  judge.add_reference_trial(correct(0, "fresh").message());
  feed(judge, good_candidate());
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::harness_error);
  EXPECT_EQ(result.reason_code, "reference_missing");
  EXPECT_THAT(result.message, HasSubstr("trial 1"));
}

TEST_F(WorkloadJudgeTest, MissingLatencyIsAHarnessError) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  feed(judge, good_candidate());

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::harness_error);
  EXPECT_EQ(result.reason_code, "no_latency");
  EXPECT_FALSE(result.latency.has_value());
}

TEST_F(WorkloadJudgeTest, FewerTrialsThanExpectedIsIncomplete) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  reports.pop_back();  // no after-timing trial
  feed(judge, reports);
  judge.add_timing(timed(some_latency()));

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::harness_error);
  EXPECT_EQ(result.reason_code, "incomplete");
  EXPECT_THAT(result.message, HasSubstr("4 of 5"));
}

TEST_F(WorkloadJudgeTest, CrashReportedByTheOrchestratorKeepsItsVerdict) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  auto reports = good_candidate();
  reports.resize(2);  // the worker died during trial 2
  feed(judge, reports);
  judge.fail(record::Verdict::crashed, "worker_crashed", "killed by signal 11");

  const record::WorkloadResult result = judge.finish(3.0);

  EXPECT_TRUE(judge.failed());
  EXPECT_EQ(result.verdict, record::Verdict::crashed);
  EXPECT_EQ(result.reason_code, "worker_crashed");
  EXPECT_EQ(result.message, "killed by signal 11");
  EXPECT_EQ(result.trials.size(), 2u);
  EXPECT_FALSE(result.latency.has_value());
}

TEST_F(WorkloadJudgeTest, LaterFailCallsDoNotReplaceTheFirst) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  judge.fail(record::Verdict::runtime_error, "candidate_exception", "RuntimeError: boom");
  judge.fail(record::Verdict::crashed, "worker_crashed", "exited with status 0");

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::runtime_error);
  EXPECT_EQ(result.reason_code, "candidate_exception");
  EXPECT_EQ(result.message, "RuntimeError: boom");
}

TEST_F(WorkloadJudgeTest, FailureAfterEveryTrialPassedStillDecides) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_reference(judge);
  feed(judge, good_candidate());
  judge.add_timing(timed(some_latency()));
  judge.fail(record::Verdict::timed_out, "call_timeout", "no progress for 10 s");

  const record::WorkloadResult result = judge.finish(0.0);

  EXPECT_EQ(result.verdict, record::Verdict::timed_out);
  EXPECT_EQ(result.reason_code, "call_timeout");
  EXPECT_FALSE(result.latency.has_value());
}

// A sampler task: output "samples" (int64 [2]) checked against a target of 2 rows x 3 tokens.
class SampledOutputJudgeTest : public WorkloadJudgeTest {
 protected:
  void SetUp() override {
    WorkloadJudgeTest::SetUp();
    task_.evaluation.arguments = {"logits", "seed"};
    task_.evaluation.outputs = {"samples"};
    task_.input_rules.static_inputs = {"seed"};
    task_.input_rules.dynamic_inputs = {"logits"};
    task_.evaluation.distribution_checks = {{"samples", "seed", "100", 1e-6}};
  }

  template <typename T>
  TensorFile file(const std::string& name, const std::string& dtype, std::vector<int64_t> shape,
                  const std::vector<T>& values) {
    TensorFile out{name, dtype, std::move(shape), false,
                   dir_ / ("s" + std::to_string(counter_++) + ".bin")};
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    protocol::write_bytes(out.path, bytes);
    return out;
  }

  // Row 0 is greedy on token 1; row 1 is {0.25, 0, 0.75}.
  protocol::Targets targets(int t) {
    return protocol::decode<protocol::Targets>(json{{"event", "targets"},
            {"trial", t},
            {"files", {file<float>("target_probabilities", "float32", {2, 3},
                                   {0.0f, 1.0f, 0.0f, 0.25f, 0.0f, 0.75f}),
                       file<uint8_t>("target_support", "uint8", {2, 3}, {0, 1, 0, 1, 0, 1})}}});
  }

  TrialReport sampled(int t, const std::string& kind, std::vector<int64_t> samples) {
    TrialReport report;
    report.trial = t;
    report.seed = 1000 + t;
    report.kind = kind;
    report.inputs_before = {{"logits", "l" + std::to_string(t)}, {"seed", "repr:7"}};
    report.inputs_after = report.inputs_before;
    report.outputs = {file<int64_t>("samples", "int64", {2}, samples)};
    return report;
  }

  void feed_sampled_reference(WorkloadJudge& judge) {
    const char* kinds[] = {"fresh", "same_buffers", "fresh", "after_timing"};
    for (int t = 0; t < 4; ++t) {
      judge.add_reference_trial(sampled(t, kinds[t], {1, 2}).message());
      judge.add_reference_targets(targets(t));
    }
  }

  void feed_sampled_candidate(WorkloadJudge& judge, std::vector<int64_t> trial_2_samples = {1, 0}) {
    judge.add_candidate_trial(sampled(0, "fresh", {1, 2}).message());
    judge.add_candidate_trial(sampled(1, "same_buffers", {1, 0}).message());
    judge.add_candidate_trial(sampled(2, "fresh", trial_2_samples).message());
  }

  // 100 draws of row 1 with `zeros` token-0 samples (expected 25) and the rest token 2.
  protocol::Draws draws(int zeros) {
    std::vector<int64_t> samples;
    for (int d = 0; d < 100; ++d) {
      samples.push_back(1);
      samples.push_back(d < zeros ? 0 : 2);
    }
    return {2, file<int64_t>("samples", "int64", {100, 2}, samples)};
  }

  void finish_candidate(WorkloadJudge& judge) {
    judge.add_candidate_trial(sampled(2, "last_timed_call", {1, 2}).message());
    judge.add_candidate_trial(sampled(3, "after_timing", {1, 2}).message());
    judge.add_timing(timed(some_latency()));
  }
};

TEST_F(SampledOutputJudgeTest, SamplesInTheSupportThatFitPass) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_sampled_reference(judge);
  feed_sampled_candidate(judge);
  judge.add_candidate_draws(draws(27));
  finish_candidate(judge);
  const record::WorkloadResult result = judge.finish(0.0);
  EXPECT_EQ(result.verdict, record::Verdict::passed) << result.message;
  ASSERT_EQ(result.trials[2].outputs.size(), 2u);
  EXPECT_THAT(result.trials[2].outputs[1].name, HasSubstr("chi-square fit of 100 draws"));
}

TEST_F(SampledOutputJudgeTest, ASampleOutsideTheSupportIsIncorrect) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_sampled_reference(judge);
  feed_sampled_candidate(judge, {1, 1});
  const record::WorkloadResult result = judge.finish(0.0);
  EXPECT_EQ(result.verdict, record::Verdict::incorrect);
  EXPECT_EQ(result.reason_code, "sample_outside_support");
  EXPECT_THAT(result.message, HasSubstr("trial 2 (fresh): draw 0 row 1: sampled token 1"));
}

TEST_F(SampledOutputJudgeTest, AGreedyRowMustReturnItsToken) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_sampled_reference(judge);
  feed_sampled_candidate(judge, {0, 2});
  const record::WorkloadResult result = judge.finish(0.0);
  EXPECT_EQ(result.reason_code, "greedy_mismatch");
}

TEST_F(SampledOutputJudgeTest, DrawsThatDoNotFitAreADistributionMismatch) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_sampled_reference(judge);
  feed_sampled_candidate(judge);
  judge.add_candidate_draws(draws(60));  // 60 of 100 where 25 are expected
  finish_candidate(judge);
  const record::WorkloadResult result = judge.finish(0.0);
  EXPECT_EQ(result.verdict, record::Verdict::incorrect);
  EXPECT_EQ(result.reason_code, "distribution_mismatch");
  EXPECT_THAT(result.message, HasSubstr("chi-square 65.3 on 1 degrees of freedom"));
  EXPECT_FALSE(result.trials[2].passed);
}

TEST_F(SampledOutputJudgeTest, MissingDrawsAreAHarnessError) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  feed_sampled_reference(judge);
  feed_sampled_candidate(judge);
  finish_candidate(judge);
  const record::WorkloadResult result = judge.finish(0.0);
  EXPECT_EQ(result.verdict, record::Verdict::harness_error);
  EXPECT_EQ(result.reason_code, "draws_missing");
}

TEST_F(SampledOutputJudgeTest, ATrialWithoutTargetsIsAHarnessError) {
  WorkloadJudge judge(task_, "small", kExpectedTrials, true);
  judge.add_reference_trial(sampled(0, "fresh", {1, 2}).message());
  judge.add_candidate_trial(sampled(0, "fresh", {1, 2}).message());
  const record::WorkloadResult result = judge.finish(0.0);
  EXPECT_EQ(result.verdict, record::Verdict::harness_error);
  EXPECT_THAT(result.message, HasSubstr("no target distribution"));
}

}  // namespace
}  // namespace d2k::eval
