#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace d2k::util {

// Keeps at most `limit` bytes, marking the cut, and never splits a UTF-8 sequence.
std::string bounded(std::string_view text, size_t limit);
// The last `limit` bytes (for logs, where the end matters most), cut on a UTF-8 boundary.
std::string tail(std::string_view text, size_t limit);
// The whole file, bytes as they are; throws std::runtime_error naming the file if unreadable.
std::string read_text_file(const std::filesystem::path& path);
// Current time in UTC as ISO 8601 with seconds ("2026-11-29T21:40:05Z").
std::string utc_now_iso8601();

}  // namespace d2k::util
