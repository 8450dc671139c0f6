#pragma once

#include <string>
#include <vector>

#include "record/latency.h"

namespace d2k::timing {

// Fills `latency`'s summary from its `samples`: the mean of their per-call latencies, their
// spread as the sample standard deviation (Bessel's correction, because a handful of samples
// estimates the spread of sample means rather than being all of them; one sample has no spread),
// min, max, samples_s and calls_per_sample (the last sample's). Throws std::invalid_argument
// when there are no samples.
void summarize(record::Latency& latency);

}  // namespace d2k::timing
