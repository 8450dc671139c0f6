#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "record/result.h"

namespace d2k::timing {

// Turns the per-call latency of each sample (a batch or a graph replay) into the reported record.
// The spread is the sample standard deviation, with Bessel's correction, because a handful of
// samples estimates the spread of batch means rather than being all of them; one sample has no
// spread (stdev 0). Throws std::invalid_argument when there are no samples.
record::Latency summarize(std::string method, int64_t calls_per_sample,
                          std::vector<double> per_call_samples_s);

}  // namespace d2k::timing
