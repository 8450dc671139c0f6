#pragma once

#include <cstdint>

#include "timing/call_target.h"
#include "timing/measurement_method.h"

namespace d2k::timing {

// Throws std::invalid_argument naming the first setting no method can work with.
void validate(const Settings& settings);

// Calls in one captured graph: whole rounds of `rotation` whose estimated device time comes
// closest to settings.graph_seconds without exceeding settings.max_calls_per_graph (at least one
// round). An estimate of zero or less (or NaN) means a call below the clock's resolution, so the
// largest graph is the only safe choice.
int64_t calls_per_graph(const Settings& settings, const InputRotation& rotation, double estimate_s);

// Replays of a graph lasting `replay_s` that make a sample of at least min_sample_seconds, with
// 5 % to spare; at least one.
int64_t replays_per_sample(const Settings& settings, double replay_s);

}  // namespace d2k::timing
