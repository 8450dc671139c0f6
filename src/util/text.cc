#include "util/text.h"

#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace d2k::util {
namespace {

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string bounded(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  size_t cut = limit;
  while (cut > 0 && is_continuation(text[cut])) --cut;
  return std::string(text.substr(0, cut)) + "\n[... " + std::to_string(text.size() - cut) +
         " more bytes]";
}

std::string tail(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  size_t start = text.size() - limit;
  while (start < text.size() && is_continuation(text[start])) ++start;
  return "[... " + std::to_string(start) + " earlier bytes]\n" + std::string(text.substr(start));
}

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

}  // namespace d2k::util
