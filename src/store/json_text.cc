#include "store/json_text.h"

#include <cmath>
#include <limits>

namespace d2k::store {
namespace {

// JSON has no NaN or infinity (nlohmann writes null, which reads back as 0.0), so non-finite
// doubles inside JSON columns are written as {"$double": "nan" | "inf" | "-inf"}.
constexpr const char* kNonFiniteKey = "$double";

void encode_nonfinite(nlohmann::json& j) {
  if (j.is_number_float()) {
    const double v = j.get<double>();
    if (!std::isfinite(v)) {
      j = nlohmann::json::object({{kNonFiniteKey, std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"}});
    }
  } else if (j.is_structured()) {
    for (auto& child : j) encode_nonfinite(child);
  }
}

void decode_nonfinite(nlohmann::json& j) {
  if (j.is_object() && j.size() == 1 && j.contains(kNonFiniteKey)) {
    const auto name = j[kNonFiniteKey].get<std::string>();
    constexpr double kInf = std::numeric_limits<double>::infinity();
    if (name == "nan") j = std::numeric_limits<double>::quiet_NaN();
    if (name == "inf") j = kInf;
    if (name == "-inf") j = -kInf;
  } else if (j.is_structured()) {
    for (auto& child : j) decode_nonfinite(child);
  }
}

}  // namespace

std::string to_json_text(nlohmann::json j) {
  encode_nonfinite(j);
  // Invalid UTF-8 (a message cut mid-character) becomes U+FFFD rather than failing the save.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json from_json_text(const std::string& text) {
  auto j = nlohmann::json::parse(text);
  decode_nonfinite(j);
  return j;
}

}  // namespace d2k::store
