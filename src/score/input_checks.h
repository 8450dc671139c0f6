#pragma once
// Argument checks shared by the score functions. A score built from a zero, negative or
// non-finite number would be a wrong number in a table, so bad inputs throw instead.

#include <string_view>

namespace d2k::score {

// Throws std::invalid_argument, naming `what` and the value, unless `value` is finite and > 0.
void require_positive(double value, std::string_view what);

// Throws std::invalid_argument, naming `what` and the value, unless `value` is finite.
void require_finite(double value, std::string_view what);

// Throws std::invalid_argument, naming `what` and the value, unless low <= value <= high.
void require_within(double value, double low, double high, std::string_view what);

}  // namespace d2k::score
