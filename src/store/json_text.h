#pragma once
// The JSON columns of the store: JSON text that keeps NaN and infinities (docs/store.md).

#include <string>

#include <nlohmann/json.hpp>

namespace d2k::store {

// `j` as compact text, non-finite doubles encoded, invalid UTF-8 replaced by U+FFFD.
std::string to_json_text(nlohmann::json j);
// The inverse of to_json_text().
nlohmann::json from_json_text(const std::string& text);

}  // namespace d2k::store
