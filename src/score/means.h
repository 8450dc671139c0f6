#pragma once

#include <span>

namespace d2k::score {

// The n-th root of the product of n values. Every value must be finite and positive: the values
// are latency ratios or scores built from them, so a zero or a negative one means broken input.
// Throws std::invalid_argument when there are no values or one is out of range.
double geometric_mean(std::span<const double> values);

// The sum of the values over their count. Throws std::invalid_argument when there are no values
// or one is not finite.
double arithmetic_mean(std::span<const double> values);

}  // namespace d2k::score
