#include "schema/code_points.h"

namespace d2k::schema {
namespace {

static_assert(sizeof(wchar_t) == 4, "a wchar_t must hold any code point");

constexpr wchar_t kReplacement = 0xFFFD;

// The length of the sequence a lead byte starts, and the bits it contributes; 0 for a byte that
// cannot start one.
int sequence_length(unsigned char lead, char32_t& bits) {
  if (lead < 0x80) return bits = lead, 1;
  if (lead >= 0xC2 && lead <= 0xDF) return bits = lead & 0x1F, 2;
  if (lead >= 0xE0 && lead <= 0xEF) return bits = lead & 0x0F, 3;
  if (lead >= 0xF0 && lead <= 0xF4) return bits = lead & 0x07, 4;
  return 0;
}

}  // namespace

std::wstring code_points(std::string_view text) {
  std::wstring out;
  out.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    char32_t value = 0;
    const int length = sequence_length(static_cast<unsigned char>(text[at]), value);
    bool ok = length > 0 && at + length <= text.size();
    for (int i = 1; ok && i < length; ++i) {
      const auto byte = static_cast<unsigned char>(text[at + i]);
      ok = (byte & 0xC0) == 0x80;
      value = (value << 6) | (byte & 0x3F);
    }
    // Overlong forms, UTF-16 surrogates and values past U+10FFFF are not UTF-8.
    constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && value >= kSmallest[length] && (value < 0xD800 || value > 0xDFFF) &&
         value <= 0x10FFFF;
    out.push_back(ok ? static_cast<wchar_t>(value) : kReplacement);
    at += ok ? length : 1;
  }
  return out;
}

}  // namespace d2k::schema
