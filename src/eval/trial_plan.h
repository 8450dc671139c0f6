#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/messages.h"

namespace d2k::eval {

// One call whose outputs are checked against the reference.
using protocol::PlannedTrial;

// The correctness trials of one workload. Seeds mix the evaluation's secret base seed with the
// workload and trial index, so they differ per evaluation and cannot be guessed in advance.
struct TrialPlan {
  std::vector<PlannedTrial> before_timing;  // trial 1 reuses trial 0's buffers
  PlannedTrial after_timing;
  // The trial whose inputs the timed calls use (the last one before timing).
  int timing_trial() const { return before_timing.back().index; }
  // Every trial the reference must compute, in index order.
  std::vector<PlannedTrial> all() const;
};

TrialPlan make_trial_plan(uint64_t base_seed, int workload_index, int trials);

// A fresh secret from the operating system's entropy source.
uint64_t random_base_seed();

}  // namespace d2k::eval
