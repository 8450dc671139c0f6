#include "score/input_checks.h"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

namespace d2k::score {
namespace {

// The shortest text that reads back as the same double, so a message shows the exact input.
std::string text(double value) {
  char digits[32];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  return std::string(digits, end);
}

[[noreturn]] void reject(double value, std::string_view what, const std::string& expected) {
  throw std::invalid_argument(std::string(what) + " must be " + expected + ", got " +
                              text(value));
}

}  // namespace

void require_positive(double value, std::string_view what) {
  if (!std::isfinite(value) || value <= 0.0) reject(value, what, "finite and positive");
}

void require_finite(double value, std::string_view what) {
  if (!std::isfinite(value)) reject(value, what, "finite");
}

void require_within(double value, double low, double high, std::string_view what) {
  // Written so that NaN fails too.
  if (!(value >= low && value <= high)) {
    reject(value, what, "within [" + text(low) + ", " + text(high) + "]");
  }
}

}  // namespace d2k::score
