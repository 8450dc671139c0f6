#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/messages.h"
#include "protocol/tensor_file.h"
#include "record/result.h"
#include "task/task.h"

namespace d2k::eval {

using protocol::MappedFile;
using protocol::TensorFile;

// Turns what the two workers reported into one workload's verdict. It holds the reference's
// trial outputs, compares each candidate trial against them, and keeps the first failure as the
// verdict (later trials still add evidence). Pure logic over messages and tensor files, so it is
// tested without processes.
//
// The reference's tensor files are mapped into this process and unlinked as soon as they are
// reported, before the candidate worker starts: the candidate can neither read nor overwrite them.
class WorkloadJudge {
 public:
  // `timed`: the workload's calls are timed (not --quick), so a latency must come. `draws`: a
  // task with a distribution check gets the candidate's draws (all but `d2k profile`).
  WorkloadJudge(const task::Task& task, std::string workload, int expected_trials, bool timed,
                bool draws = true);

  void add_reference_trial(const protocol::Trial& message);
  // A task with a distribution check: the reference's target of one trial (probabilities and
  // support), and the candidate's fit-test draws.
  void add_reference_targets(const protocol::Targets& message);
  void add_candidate_trial(const protocol::Trial& message);
  void add_candidate_draws(const protocol::Draws& message);
  // The latency, and the digests of every input set the timed calls used: an argument that is not
  // a mutable input must be the same after timing as before.
  void add_timing(const protocol::TimingResult& message);
  void set_workspace(uint64_t bytes) { workspace_bytes_ = static_cast<int64_t>(bytes); }
  // A timing-only anchor (another operator): its trials still prove that it left the inputs
  // alone, but its outputs are not compared with the reference's.
  void leave_outputs_uncompared() { compare_outputs_ = false; }
  // A failure the worker reported, or one the orchestrator saw (crash, timeout).
  void fail(record::Verdict verdict, std::string reason_code, std::string message);

  bool failed() const { return failure_.has_value(); }
  record::WorkloadResult finish(double wall_seconds);

 private:
  struct ReferenceTensor {
    TensorFile file;
    std::shared_ptr<const MappedFile> data;
  };
  struct ReferenceTrial {
    std::map<std::string, std::string> inputs;
    std::vector<ReferenceTensor> outputs;
    std::vector<ReferenceTensor> state;
  };
  struct Failure {
    record::Verdict verdict;
    std::string reason_code;
    std::string message;
  };

  void check_inputs(const protocol::Trial& candidate, const ReferenceTrial& reference,
                    record::TrialCheck& trial);
  void compare_all(const std::vector<TensorFile>& candidate,
                   const std::vector<ReferenceTensor>& reference, bool state,
                   record::TrialCheck& trial, const std::vector<ReferenceTensor>* targets = nullptr);
  // A sampled output: its dtype and shape against the reference's, then every sample in the
  // target's support and greedy rows exact (eval/distribution_check.h).
  record::OutputCheck check_sampled_output(const TensorFile& candidate,
                                           const ReferenceTensor& reference,
                                           const std::vector<ReferenceTensor>* targets,
                                           std::string& reason_code);
  static std::vector<ReferenceTensor> take_reference(const std::vector<TensorFile>& files);

  const task::Task& task_;
  std::string workload_;
  int expected_trials_;
  bool timed_;
  std::optional<int64_t> workspace_bytes_;
  std::map<int, ReferenceTrial> reference_;
  std::map<int, std::vector<ReferenceTensor>> targets_;  // per trial: probabilities, support
  bool draws_expected_;
  bool draws_checked_ = false;
  bool compare_outputs_ = true;
  std::vector<record::TrialCheck> trials_;
  std::optional<record::Latency> latency_;
  std::optional<Failure> failure_;
};

}  // namespace d2k::eval
