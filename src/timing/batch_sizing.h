#pragma once

#include <cstdint>

#include "timing/measurement_method.h"

namespace d2k::timing {

// Throws std::invalid_argument naming the first setting no method can work with.
void validate(const Settings& settings);

// How many calls one sample holds so that it lasts at least `settings.min_sample_seconds`, given
// the estimated device time of one call: ceil(min_sample_seconds / estimate_s), clamped to
// [1, settings.max_calls_per_sample]. An estimate of zero or less (or NaN) means the call is
// below the clock's resolution, so the largest sample is the only safe choice.
int64_t calls_per_sample(const Settings& settings, double estimate_s);

}  // namespace d2k::timing
