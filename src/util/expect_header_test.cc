#include "util/expect_header_test_util.h"

#include <gtest/gtest.h>

#include "util/temp_dir.h"

namespace d2k::util {
namespace {

namespace fs = std::filesystem;

fs::path write(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
  return file;
}

TEST(ExpectHeaderTest, ReadsThePythonHeaderUpToTheFirstCodeLine) {
  TempDir dir;
  const auto header = read_expect_header(
      write(dir.path() / "a.py",
            "# expect-verdict: invalid \n#expect-reason:side_stream\r\n# expect-message: two streams\n"
            "# expect-message: harness\n# why it cheats\nimport torch\n# expect-reason: later\n"));
  EXPECT_EQ(header.verdict, "invalid");
  EXPECT_EQ(header.reason, "side_stream");
  EXPECT_EQ(header.messages, (std::vector<std::string>{"two streams", "harness"}));
}

TEST(ExpectHeaderTest, CudaAndCppFilesUseSlashes) {
  TempDir dir;
  EXPECT_EQ(read_expect_header(write(dir.path() / "a.cu", "// expect-verdict: invalid\n")).verdict,
            "invalid");
  EXPECT_EQ(read_expect_header(write(dir.path() / "a.cpp", "# expect-verdict: invalid\n")).verdict, "");
}

TEST(ExpectHeaderTest, AFileWithoutHeaderExpectsNothing) {
  TempDir dir;
  const auto header = read_expect_header(write(dir.path() / "legit.py", "import torch\n"));
  EXPECT_EQ(header.verdict, "");
  EXPECT_FALSE(header.reason.has_value());
  EXPECT_TRUE(header.messages.empty());
}

}  // namespace
}  // namespace d2k::util
