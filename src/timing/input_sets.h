#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace d2k::timing {

// How many independent input sets the timed calls rotate over (docs/timing.md, "Cache policy").
struct InputSetPlan {
  int64_t sets = 1;
  std::string why;  // the rule that decided, for the record
};

struct InputSetNeeds {
  std::string cache_policy;  // "cold" or "hot"
  int64_t set_bytes = 0;     // tensor bytes of one argument list
  int64_t output_bytes = 0;  // bytes of one call's outputs
  int64_t l2_bytes = 0;      // 0 where there is no device cache to defeat
  std::optional<int64_t> peak_aux_bytes;  // the task's bound on auxiliary memory
  int64_t memory_budget = 0;  // bytes the extra sets may take (state copies included)
  int64_t bytes_per_set = 0;  // what one more set costs in that budget
  int64_t max_sets = 4096;
};

// "hot": one set, every call on the same inputs. "cold": at least two sets, so consecutive
// calls never share inputs; enough that all sets together exceed twice the L2, so no input is
// still cached when a call comes back to it; and, where `max_sets` and the memory budget allow
// that many, more sets than the outputs of all of them could fit in the task's
// auxiliary-memory bound, so a candidate cannot keep an answer for every set. Capped by
// `max_sets` and the memory budget; the plan says when a cap decided.
// Throws std::invalid_argument for an unknown policy.
InputSetPlan plan_input_sets(const InputSetNeeds& needs);

}  // namespace d2k::timing
