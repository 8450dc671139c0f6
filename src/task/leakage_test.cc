#include "task/leakage.h"

#include <gtest/gtest.h>

namespace d2k::task {
namespace {

using Strings = std::vector<std::string>;

TEST(SharedPhrasesTest, FindsACopiedSentenceThroughMarkupAndCase) {
  const std::string description = "The kernel **reads each row once** in chunks of 8192 tokens, then decides.";
  const std::string notes = "Design: \"the Kernel reads each row once in chunks of 8192 tokens\"";
  EXPECT_EQ(shared_phrases(description, notes),
            (Strings{"each row once in chunks of 8192 tokens", "kernel reads each row once in chunks of",
                     "reads each row once in chunks of 8192", "the kernel reads each row once in chunks"}));
}

TEST(SharedPhrasesTest, SevenCommonWordsAreNoPhrase) {
  EXPECT_TRUE(shared_phrases("one two three four five six seven", "one two three four five six seven").empty());
  EXPECT_EQ(shared_phrases("a b c d e f g h", "x a b c d e f g h y"), Strings{"a b c d e f g h"});
}

TEST(DatesAndCommitsTest, FindsIsoDatesAndHashes) {
  EXPECT_EQ(dates_and_commits("measured 2026-12-01 at 458844c, see 0123456789abcdef0123"),
            (Strings{"2026-12-01", "458844c", "0123456789abcdef0123"}));
}

TEST(DatesAndCommitsTest, IgnoresNumbersAndWords) {
  EXPECT_TRUE(dates_and_commits("151936 tokens, 1e-6, deadbeef, facade, 0x1f, 2048x5464").empty());
}

}  // namespace
}  // namespace d2k::task
