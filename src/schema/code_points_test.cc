#include "schema/code_points.h"

#include <gtest/gtest.h>

namespace d2k::schema {
namespace {

TEST(CodePointsTest, DecodesEachSequenceLengthToOneCodePoint) {
  EXPECT_EQ(code_points("abc"), L"abc");
  EXPECT_EQ(code_points("h\xC3\xA9"), std::wstring({L'h', wchar_t{0xE9}}));           // é
  EXPECT_EQ(code_points("\xE6\x97\xA5"), std::wstring({wchar_t{0x65E5}}));          // 日
  EXPECT_EQ(code_points("\xF0\x9F\x98\x80"), std::wstring({wchar_t{0x1F600}}));     // 😀
  EXPECT_EQ(code_points(""), L"");
}

TEST(CodePointsTest, ReplacesEachByteOfAMalformedSequence) {
  const std::wstring two_replacements = {wchar_t{0xFFFD}, wchar_t{0xFFFD}};
  EXPECT_EQ(code_points("\xC3"), std::wstring({wchar_t{0xFFFD}}));         // truncated
  EXPECT_EQ(code_points("\xC0\xAF"), two_replacements);                    // overlong '/'
  EXPECT_EQ(code_points("\xFF"), std::wstring({wchar_t{0xFFFD}}));         // never a lead byte
  EXPECT_EQ(code_points("\xC3z"), std::wstring({wchar_t{0xFFFD}, L'z'}));  // bad continuation
  // A UTF-16 surrogate written as three bytes is not UTF-8.
  EXPECT_EQ(code_points("\xED\xA0\x80").size(), 3u);
  EXPECT_EQ(code_points("\xF4\x90\x80\x80").size(), 4u);  // past U+10FFFF
}

}  // namespace
}  // namespace d2k::schema
