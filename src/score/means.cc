#include "score/means.h"

#include <cmath>
#include <stdexcept>

#include "score/input_checks.h"

namespace d2k::score {

double geometric_mean(std::span<const double> values) {
  if (values.empty()) throw std::invalid_argument("geometric mean of no values");
  // Logs, so that no product overflows, summed in extended precision, so that a mean that is
  // exactly a double comes out exactly (GM of {1, 4} is 2, of {1.5} is 1.5) for sets of the sizes
  // scores use. In double, exp(log(x)) is often an ulp off, and fast_p's strict "> p" must not
  // turn on that.
  long double log_sum = 0.0L;
  for (const double value : values) {
    require_positive(value, "a geometric mean's value");
    log_sum += std::log(static_cast<long double>(value));
  }
  return static_cast<double>(std::exp(log_sum / static_cast<long double>(values.size())));
}

double arithmetic_mean(std::span<const double> values) {
  if (values.empty()) throw std::invalid_argument("arithmetic mean of no values");
  double sum = 0.0;
  for (const double value : values) {
    require_finite(value, "an arithmetic mean's value");
    sum += value;
  }
  return sum / static_cast<double>(values.size());
}

}  // namespace d2k::score
