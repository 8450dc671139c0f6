#include "eval/trial_plan.h"

#include <random>
#include <stdexcept>

namespace d2k::eval {
namespace {

// SplitMix64 finalizer: a well-mixing bijection, so seeds of different (workload, trial) pairs
// collide only by chance. It is invertible: it keeps seeds unpredictable before a run, not
// secret from code that sees one of them.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t trial_seed(uint64_t base, int workload, int trial) {
  // get_inputs receives the seed as a Python int that task code may pass to torch.manual_seed,
  // which takes 63-bit values.
  return mix(mix(base ^ static_cast<uint64_t>(workload) << 32) + static_cast<uint64_t>(trial)) >> 1;
}

}  // namespace

std::vector<PlannedTrial> TrialPlan::all() const {
  std::vector<PlannedTrial> trials = before_timing;
  trials.push_back(after_timing);
  return trials;
}

TrialPlan make_trial_plan(uint64_t base_seed, int workload_index, int trials) {
  if (trials < 3) throw std::invalid_argument("at least three correctness trials are required");
  TrialPlan plan;
  for (int i = 0; i < trials; ++i) {
    plan.before_timing.push_back(
        {i, trial_seed(base_seed, workload_index, i), i == 1 ? "same_buffers" : "fresh"});
  }
  plan.after_timing = {trials, trial_seed(base_seed, workload_index, trials), "after_timing"};
  return plan;
}

uint64_t random_base_seed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace d2k::eval
