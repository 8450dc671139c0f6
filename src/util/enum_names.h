#pragma once
// Lookup in a constant table of (enum value, name) pairs, for the to_string/parse pairs of the
// enums that travel as text (config files, JSON records, store columns).

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace d2k::util {

template <typename Enum, size_t N>
using EnumNames = std::array<std::pair<Enum, const char*>, N>;

// The name of `value`, or nullptr when the table lacks it (the caller decides what that means).
template <typename Enum, size_t N>
const char* find_name(const EnumNames<Enum, N>& names, Enum value) {
  for (const auto& [v, name] : names) {
    if (v == value) return name;
  }
  return nullptr;
}

template <typename Enum, size_t N>
std::optional<Enum> find_value(const EnumNames<Enum, N>& names, std::string_view text) {
  for (const auto& [v, name] : names) {
    if (text == name) return v;
  }
  return std::nullopt;
}

}  // namespace d2k::util
