#include "judge/source_listing.h"

#include <gtest/gtest.h>

namespace d2k::judge {
namespace {

std::vector<bool> executable(const SourceListing& source) {
  std::vector<bool> out;
  for (int line = 1; line <= source.line_count(); ++line) out.push_back(source.is_executable(line));
  return out;
}

TEST(JudgeSourceListing, SplitsLinesAndNumbersThemToTheWidthOfTheLast) {
  std::string text;
  for (int i = 1; i <= 10; ++i) text += "x = " + std::to_string(i) + "\r\n";
  const SourceListing source(text, SourceLanguage::python);
  ASSERT_EQ(source.line_count(), 10);
  EXPECT_EQ(source.line(1), "x = 1");  // the '\r' of CRLF is dropped
  const std::string numbered = source.numbered();
  EXPECT_EQ(numbered.substr(0, 9), " 1: x = 1");
  EXPECT_NE(numbered.find("\n10: x = 10\n"), std::string::npos);
}

TEST(JudgeSourceListing, AFinalLineWithoutNewlineCountsAndAnEmptyFileHasNoLines) {
  EXPECT_EQ(SourceListing("a\nb", SourceLanguage::python).line_count(), 2);
  EXPECT_EQ(SourceListing("a\nb\n", SourceLanguage::python).line_count(), 2);
  EXPECT_EQ(SourceListing("a\n\n", SourceLanguage::python).line_count(), 2);
  EXPECT_EQ(SourceListing("", SourceLanguage::python).line_count(), 0);
}

TEST(JudgeSourceListing, PythonCommentsDocstringsAndBlankLinesAreNotExecutable) {
  const SourceListing source(
      "\"\"\"Module docstring\n"          // 1
      "over two lines.\"\"\"\n"           // 2
      "import torch  # a comment\n"       // 3
      "\n"                                // 4
      "def f(x):\n"                       // 5
      "    '''Docstring.'''\n"            // 6
      "    # only a comment\n"            // 7
      "    s = \"\"\"a string\n"          // 8
      "    # inside a string\"\"\"\n"     // 9
      "    t = '#' + \\\n"                // 10
      "        'b'\n"                     // 11
      "    r\"\"\"raw bare\"\"\"  # c\n"  // 12
      "    u = (\n"                       // 13
      "        \"implicitly joined\"\n"   // 14
      "    )\n"                           // 15
      "    \"not bare\".strip()\n",       // 16
      SourceLanguage::python);
  EXPECT_EQ(executable(source),
            (std::vector<bool>{false, false, true, false, true, false, false, true, true, true,
                               true, false, true, true, true, true}));
}

TEST(JudgeSourceListing, CLikeCommentsAreNotExecutable) {
  const SourceListing source(
      "// a\n"
      "/* b\n"
      "   c */ int d;\n"
      "  \n"
      "x = '/';  /* e */\n",
      SourceLanguage::c_like);
  EXPECT_EQ(executable(source), (std::vector<bool>{false, false, true, false, true}));
}

TEST(JudgeSourceListing, LanguageComesFromTheExtension) {
  EXPECT_EQ(language_of("kernel.cu"), SourceLanguage::c_like);
  EXPECT_EQ(language_of("a/b/ext.cpp"), SourceLanguage::c_like);
  EXPECT_EQ(language_of("solution.py"), SourceLanguage::python);
  EXPECT_EQ(language_of("solution"), SourceLanguage::python);
}

TEST(JudgeSourceListing, TrimIndentationRemovesOnlyLeadingSpacesAndTabs) {
  EXPECT_EQ(trim_indentation(" \t x = 1 "), "x = 1 ");
  EXPECT_EQ(trim_indentation("   "), "");
}

}  // namespace
}  // namespace d2k::judge
