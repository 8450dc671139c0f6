// A bounded random-input test of the judge-reply readers: whatever a judge answers (random bytes,
// JSON nested far past the depth limit, a valid reply with bytes changed), verification returns
// levels or errors, never a crash, and never both.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "judge/verification.h"
#include "util/hostile_text_test_util.h"

namespace d2k::judge {
namespace {

using nlohmann::json;

constexpr int kRounds = 1500;

const char* const kSolution = "import torch\n\n\ndef run(x):\n    m = x.amax(dim=-1, keepdim=True)\n"
                              "    e = (x - m).exp()\n    return e / e.sum(dim=-1, keepdim=True)\n";

// A level of the implementation format with one citation (as in verification_test.cc).
json level(const std::string& id, double score, int line, const std::string& quote) {
  return {{"id", id},
          {"solution",
           {{"score", score},
            {"band", "partial_implementation"},
            {"evidence", json::array({{{"line_start", line}, {"line_end", line}, {"quote", quote}}})},
            {"reason", "what is realized and what is missing"},
            {"alternative_design", "none"}}}};
}

TEST(JudgeReplyFuzzTest, HostileRepliesGiveErrorsNeverCrashes) {
  const SourceListing solution(kSolution, SourceLanguage::python);
  const DesignText design(R"({"approach": "a numerically stable softmax, one row per block"})");
  const std::string valid =
      json{{"levels", {level("L1", 40, 5, "m = x.amax(dim=-1, keepdim=True)"), level("L2", 55, 6, "e = (x - m).exp()"),
                       level("L3", 62.5, 7, "return e / e.sum(dim=-1, keepdim=True)")}}}
          .dump();
  ASSERT_TRUE(verify_impl_reply(valid, solution).ok()) << "control: the unchanged reply is valid";
  util::HostileText hostile(7);
  int refused = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string reply = hostile.next(valid);
    const Verification v = verify_impl_reply(reply, solution);
    if (v.ok()) {
      EXPECT_EQ(v.levels.size(), 3u) << reply;
    } else {
      ++refused;
    }
    EXPECT_FALSE(verify_design_reply(reply, design).ok()) << "no design quote in an implementation reply";
    const DesignText hostile_design(reply);  // a design file is hostile text too
    check_design_quote(hostile_design, "a numerically stable softmax");
  }
  EXPECT_GT(refused, kRounds / 2);
}

}  // namespace
}  // namespace d2k::judge
