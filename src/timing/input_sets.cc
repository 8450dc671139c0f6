#include "timing/input_sets.h"

#include <algorithm>
#include <stdexcept>

namespace d2k::timing {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

InputSetPlan plan_input_sets(const InputSetNeeds& needs) {
  if (needs.cache_policy == "hot") return {1, "hot: every call on one input set"};
  if (needs.cache_policy != "cold") {
    throw std::invalid_argument("unknown cache policy '" + needs.cache_policy +
                                "' (known: cold, hot)");
  }
  InputSetPlan plan{2, "cold: consecutive calls on different sets"};
  if (needs.l2_bytes > 0 && needs.set_bytes > 0) {
    const int64_t l2_sets = ceil_div(2 * needs.l2_bytes, needs.set_bytes);
    if (l2_sets > plan.sets) plan = {l2_sets, "cold: together the sets exceed twice the L2"};
  }
  const int64_t by_memory =
      needs.bytes_per_set > 0 ? std::max<int64_t>(1, needs.memory_budget / needs.bytes_per_set)
                              : needs.max_sets;
  const int64_t cap = std::min(needs.max_sets, by_memory);
  if (needs.peak_aux_bytes && needs.output_bytes > 0) {
    // Only where it can be reached: when every set's answer fits in the bound at any number of
    // sets the device can hold, more sets cost memory and stop nothing (the timed-set audit
    // stands guard there, docs/protocol.md).
    const int64_t answer_sets = *needs.peak_aux_bytes / needs.output_bytes + 1;
    if (answer_sets > plan.sets && answer_sets <= cap) {
      plan = {answer_sets, "cold: the outputs of all sets exceed the auxiliary-memory bound"};
    } else if (answer_sets > cap) {
      plan.why += " (the outputs of " + std::to_string(cap) +
                  " sets would still fit in the auxiliary-memory bound; not sized against it)";
    }
  }
  if (plan.sets > cap) {
    plan.why += " (wanted " + std::to_string(plan.sets) + " sets; capped at " +
                std::to_string(cap) + (cap == needs.max_sets ? " sets)" : " by device memory)");
    plan.sets = std::max<int64_t>(1, cap);
  }
  return plan;
}

}  // namespace d2k::timing
