#pragma once
// Reading record fields from JSON written by any d2k version: a missing or null field takes its
// default, except a number, whose null is NaN (JSON cannot hold NaN, and nlohmann writes null).

#include <limits>

#include <nlohmann/json.hpp>

namespace d2k::record {

template <typename T>
T value_or(const nlohmann::json& j, const char* key, T fallback) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? fallback : it->get<T>();
}

// A null number reads as NaN, never as a plausible 0.0 ("no error").
inline double number_or(const nlohmann::json& j, const char* key, double fallback) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  return it->is_null() ? std::numeric_limits<double>::quiet_NaN() : it->get<double>();
}

}  // namespace d2k::record
