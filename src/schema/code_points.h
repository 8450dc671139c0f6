#pragma once
// JSON Schema counts string lengths in Unicode code points and matches patterns against code
// points; nlohmann::json holds UTF-8 bytes.

#include <string>
#include <string_view>

namespace d2k::schema {

// The code points of UTF-8 `text`, one wchar_t each (32 bits on the platforms d2k builds on).
// Each byte of a malformed sequence becomes U+FFFD.
std::wstring code_points(std::string_view text);

}  // namespace d2k::schema
