#include "judge/verification.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace d2k::judge {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Nine lines: a docstring (5), a comment (6) and three lines of code (7-9).
constexpr const char* kSolution =
    "import torch\n"
    "\n"
    "\n"
    "def run(x):\n"
    "    \"\"\"Row softmax.\"\"\"\n"
    "    # Subtract the row maximum so exp cannot overflow.\n"
    "    m = x.amax(dim=-1, keepdim=True)\n"
    "    e = (x - m).exp()\n"
    "    return e / e.sum(dim=-1, keepdim=True)\n";

class JudgeCodeCitation : public ::testing::Test {
 protected:
  std::optional<std::string> check(int start, int end, const std::string& quote) const {
    return check_code_citation(solution_, {start, end, quote});
  }

  SourceListing solution_{kSolution, SourceLanguage::python};
};

TEST_F(JudgeCodeCitation, ExactQuoteWithItsIndentationPasses) {
  EXPECT_EQ(check(7, 7, "    m = x.amax(dim=-1, keepdim=True)"), std::nullopt);
}

TEST_F(JudgeCodeCitation, QuoteWithIndentationTrimmedPasses) {
  EXPECT_EQ(check(7, 7, "m = x.amax(dim=-1, keepdim=True)"), std::nullopt);
  EXPECT_EQ(check(7, 7, "\t  m = x.amax(dim=-1, keepdim=True)"), std::nullopt);
}

TEST_F(JudgeCodeCitation, QuoteSpanningLinesPassesWithEachLineTrimmedOrNot) {
  EXPECT_EQ(check(7, 9,
                  "m = x.amax(dim=-1, keepdim=True)\n"
                  "    e = (x - m).exp()\n"
                  "return e / e.sum(dim=-1, keepdim=True)"),
            std::nullopt);
}

TEST_F(JudgeCodeCitation, RangeWithCommentsAndCodePasses) {
  EXPECT_EQ(check(5, 7,
                  "\"\"\"Row softmax.\"\"\"\n"
                  "# Subtract the row maximum so exp cannot overflow.\n"
                  "m = x.amax(dim=-1, keepdim=True)"),
            std::nullopt);
}

TEST_F(JudgeCodeCitation, OffByOneRangeFailsAndSaysWhereTheTextIs) {
  const auto error = check(8, 8, "m = x.amax(dim=-1, keepdim=True)");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error,
            "quote line 1 does not match solution line 8 (only leading indentation may differ): "
            "expected \"e = (x - m).exp()\", got \"m = x.amax(dim=-1, keepdim=True)\"; that text "
            "is at line 7");
}

TEST_F(JudgeCodeCitation, RangeOneLineTooLongFailsOnTheLineCount) {
  const auto error = check(7, 9, "m = x.amax(dim=-1, keepdim=True)\ne = (x - m).exp()");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, "the quote has 2 lines but lines 7-9 are 3 lines; that text is at lines 7-8");
}

TEST_F(JudgeCodeCitation, ParaphraseFailsWithTheExpectedText) {
  const auto error = check(8, 8, "e = torch.exp(x - m)");
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("expected \"e = (x - m).exp()\", got \"e = torch.exp(x - m)\""));
  EXPECT_THAT(*error, ::testing::Not(HasSubstr("that text is at")));
}

TEST_F(JudgeCodeCitation, InnerWhitespaceMustMatch) {
  EXPECT_TRUE(check(8, 8, "e = (x-m).exp()").has_value());
}

TEST_F(JudgeCodeCitation, TrailingWhitespaceMustMatch) {
  const auto error = check(8, 8, "e = (x - m).exp()  ");
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("got \"e = (x - m).exp()  \""));
}

TEST_F(JudgeCodeCitation, CommentLineFails) {
  EXPECT_EQ(check(6, 6, "# Subtract the row maximum so exp cannot overflow."),
            "line 6 holds only comments, docstrings or blank lines; cite executable code");
}

TEST_F(JudgeCodeCitation, DocstringAndBlankLinesFail) {
  EXPECT_EQ(check(5, 6,
                  "\"\"\"Row softmax.\"\"\"\n"
                  "# Subtract the row maximum so exp cannot overflow."),
            "lines 5-6 hold only comments, docstrings or blank lines; cite executable code");
  EXPECT_EQ(check(2, 3, "\n"),
            "lines 2-3 hold only comments, docstrings or blank lines; cite executable code");
}

TEST_F(JudgeCodeCitation, LinesOutsideTheSolutionFail) {
  EXPECT_EQ(check(9, 10, "x\ny"), "line_end 10 is past the last line of the solution (line 9)");
  EXPECT_EQ(check(0, 1, "import torch"), "line_start must be at least 1, got 0");
  EXPECT_EQ(check(8, 7, "x"), "line_start 8 is after line_end 7");
}

TEST_F(JudgeCodeCitation, QuoteCarryingTheListingsLineNumbersFailsWithAHint) {
  const auto error =
      check(7, 8, "7:     m = x.amax(dim=-1, keepdim=True)\n8:     e = (x - m).exp()");
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("includes the listing's line-number prefixes"));
}

TEST(JudgeCodeCitationCuda, CommentsOfCLikeSourcesAreNotEvidence) {
  const SourceListing source(
      "// load a tile\n"
      "/* a block\n"
      "   comment */\n"
      "int i = threadIdx.x;  // code with a comment\n"
      "const char* s = \"// not a comment\";\n",
      SourceLanguage::c_like);
  EXPECT_TRUE(check_code_citation(source, {1, 1, "// load a tile"}).has_value());
  EXPECT_TRUE(check_code_citation(source, {2, 3, "/* a block\ncomment */"}).has_value());
  EXPECT_EQ(check_code_citation(source, {4, 4, "int i = threadIdx.x;  // code with a comment"}),
            std::nullopt);
  EXPECT_EQ(check_code_citation(source, {5, 5, "const char* s = \"// not a comment\";"}),
            std::nullopt);
}

// A reply in the implementation format with one citation per level.
json impl_level(const std::string& id, double score, const std::string& band, json evidence) {
  return {{"id", id},
          {"solution",
           {{"score", score},
            {"band", band},
            {"evidence", std::move(evidence)},
            {"reason", "what is realized and what is missing"},
            {"alternative_design", "none"}}}};
}

json cite(int start, int end, const std::string& quote) {
  return {{"line_start", start}, {"line_end", end}, {"quote", quote}};
}

json valid_impl_reply() {
  return {
      {"levels",
       {impl_level("L1", 40, "isolated_fragment", {cite(7, 7, "m = x.amax(dim=-1, keepdim=True)")}),
        impl_level("L2", 55, "partial_implementation", {cite(8, 8, "e = (x - m).exp()")}),
        impl_level("L3", 62.5, "partial_implementation",
                   {cite(9, 9, "return e / e.sum(dim=-1, keepdim=True)")})}}};
}

class JudgeImplReply : public ::testing::Test {
 protected:
  Verification verify(const json& reply) const {
    return verify_impl_reply(reply.dump(), solution_);
  }
  Verification verify(const std::string& reply) const {
    return verify_impl_reply(reply, solution_);
  }

  SourceListing solution_{kSolution, SourceLanguage::python};
};

TEST_F(JudgeImplReply, ValidReplyGivesTheThreeLevels) {
  const Verification v = verify(valid_impl_reply());
  ASSERT_TRUE(v.ok()) << v.errors[0];
  ASSERT_EQ(v.levels.size(), 3u);
  EXPECT_EQ(v.levels[0].id, "L1");
  EXPECT_EQ(v.levels[2].score, 62.5);
  EXPECT_EQ(v.levels[1].band, "partial_implementation");
  ASSERT_EQ(v.levels[1].evidence.size(), 1u);
  EXPECT_EQ(v.levels[1].evidence[0].line_start, 8);
  EXPECT_DOUBLE_EQ(record::mean_level_score(v.levels), (40 + 55 + 62.5) / 3);
}

TEST_F(JudgeImplReply, LevelsInAnyOrderComeBackAsL1L2L3) {
  json reply = valid_impl_reply();
  std::swap(reply["levels"][0], reply["levels"][2]);
  const Verification v = verify(reply);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v.levels[0].id, "L1");
  EXPECT_EQ(v.levels[2].id, "L3");
}

TEST_F(JudgeImplReply, JsonInsideAMarkdownFenceIsAccepted) {
  EXPECT_TRUE(verify("```json\n" + valid_impl_reply().dump(2) + "\n```\n").ok());
}

TEST_F(JudgeImplReply, TextThatIsNotJsonFails) {
  EXPECT_THAT(verify(std::string("Here are my scores: L1 40")).errors,
              ElementsAre(HasSubstr("the reply is not valid JSON")));
}

TEST_F(JudgeImplReply, WrongBandFails) {
  json reply = valid_impl_reply();
  reply["levels"][1]["solution"]["band"] = "partial_design";
  const Verification v = verify(reply);
  EXPECT_THAT(v.errors, ElementsAre(HasSubstr("L2: band \"partial_design\" is not one of "
                                              "complete_implementation, ")));
  EXPECT_TRUE(v.levels.empty());
}

TEST_F(JudgeImplReply, MissingLevelFails) {
  json reply = valid_impl_reply();
  reply["levels"].erase(1);
  EXPECT_THAT(verify(reply).errors, ElementsAre("no record for L2"));
}

TEST_F(JudgeImplReply, DuplicateLevelFails) {
  json reply = valid_impl_reply();
  reply["levels"][2]["id"] = "L1";
  EXPECT_THAT(
      verify(reply).errors,
      ElementsAre("L1 appears 2 times; give exactly one record per level", "no record for L3"));
}

TEST_F(JudgeImplReply, UnknownLevelIdFails) {
  json reply = valid_impl_reply();
  reply["levels"][2]["id"] = "L4";
  EXPECT_THAT(verify(reply).errors,
              ElementsAre("levels[2]: \"id\" must be \"L1\", \"L2\" or \"L3\", got \"L4\"",
                          "no record for L3"));
}

TEST_F(JudgeImplReply, ScoreOutsideTheRangeFails) {
  json reply = valid_impl_reply();
  reply["levels"][0]["solution"]["score"] = 120;
  reply["levels"][1]["solution"]["score"] = -0.5;
  EXPECT_THAT(verify(reply).errors, ElementsAre("L1: score 120 is outside [0, 100]",
                                                "L2: score -0.5 is outside [0, 100]"));
}

TEST_F(JudgeImplReply, ScoreThatIsNotANumberFails) {
  json reply = valid_impl_reply();
  reply["levels"][0]["solution"]["score"] = "40";
  EXPECT_THAT(verify(reply).errors, ElementsAre("L1: \"score\" must be a number, got \"40\""));
}

TEST_F(JudgeImplReply, TooManyEvidenceItemsFail) {
  json reply = valid_impl_reply();
  auto& evidence = reply["levels"][2]["solution"]["evidence"];
  for (int i = 0; i < 4; ++i) evidence.push_back(cite(8, 8, "e = (x - m).exp()"));
  EXPECT_THAT(verify(reply).errors, ElementsAre("L3: 5 evidence items; give at most 4"));
}

TEST_F(JudgeImplReply, EmptyEvidenceFails) {
  json reply = valid_impl_reply();
  reply["levels"][0]["solution"]["evidence"] = json::array();
  EXPECT_THAT(verify(reply).errors, ElementsAre(HasSubstr("L1: the evidence list is empty")));
}

TEST_F(JudgeImplReply, BadCitationIsReportedWithLevelIndexAndRange) {
  json reply = valid_impl_reply();
  reply["levels"][1]["solution"]["evidence"].push_back(
      cite(6, 6, "# Subtract the row maximum so exp cannot overflow."));
  EXPECT_THAT(verify(reply).errors,
              ElementsAre("L2 evidence[1] (line 6): line 6 holds only comments, docstrings or "
                          "blank lines; cite executable code"));
}

TEST_F(JudgeImplReply, MissingAndUnexpectedFieldsFail) {
  json reply = valid_impl_reply();
  reply["levels"][0]["solution"].erase("reason");
  reply["levels"][1]["solution"]["confidence"] = 0.9;
  reply["levels"][2]["solution"]["evidence"][0].erase("line_end");
  EXPECT_THAT(verify(reply).errors,
              ElementsAre("L1: missing \"reason\"", "L2: unexpected field \"confidence\"",
                          "L3 evidence[0]: missing \"line_end\""));
}

TEST_F(JudgeImplReply, DesignShapedRecordFailsForAnImplementation) {
  json reply = valid_impl_reply();
  reply["levels"][0] = {{"id", "L1"},
                        {"score", 40},
                        {"band", "isolated_fragment"},
                        {"evidence", json::array()},
                        {"reason", "r"},
                        {"alternative_design", "none"}};
  EXPECT_THAT(verify(reply).errors, ::testing::Contains("L1: missing \"solution\""));
}

// A design with a JSON-escaped quotation mark and a line break inside one string.
constexpr const char* kDesign = R"({
  "level_1_high_level_algorithmic_insights": [
    {"name": "compose",
     "algorithmic_change":
       "Carry the square action Q and advance R <- P R P \"in place\" per segment.\nRestart once."}
  ]
})";

json design_level(const std::string& id, double score, const std::string& band, json quotes) {
  json evidence = json::array();
  for (const auto& quote : quotes) evidence.push_back({{"quote", quote}});
  return {{"id", id},      {"score", score},
          {"band", band},  {"evidence", evidence},
          {"reason", "r"}, {"alternative_design", "none"}};
}

class JudgeDesignReply : public ::testing::Test {
 protected:
  Verification verify(const json& reply) const {
    return verify_design_reply(reply.dump(), design_);
  }

  DesignText design_{kDesign};
};

TEST_F(JudgeDesignReply, QuotesFromTheFileTextOrItsDecodedStringsPass) {
  const Verification v =
      verify({{"levels",
               {design_level("L1", 35, "isolated_fragment", {"Carry the square action Q"}),
                design_level("L2", 0, "absent", json::array()),
                design_level("L3", 0, "absent", json::array())}}});
  ASSERT_TRUE(v.ok()) << v.errors[0];
  EXPECT_EQ(v.levels[0].evidence[0].quote, "Carry the square action Q");
  EXPECT_EQ(check_design_quote(design_, "advance R <- P R P \"in place\" per segment.\nRestart"),
            std::nullopt);
  EXPECT_EQ(check_design_quote(design_, R"(advance R <- P R P \"in place\")"), std::nullopt);
}

TEST_F(JudgeDesignReply, NoEvidenceIsAllowedOnlyWithScoreZero) {
  const Verification v = verify({{"levels",
                                  {design_level("L1", 35, "isolated_fragment", json::array()),
                                   design_level("L2", 0, "absent", json::array()),
                                   design_level("L3", 0, "absent", json::array())}}});
  EXPECT_THAT(v.errors, ElementsAre(HasSubstr("L1: score 35 needs 1 to 4 quotes")));
}

TEST_F(JudgeDesignReply, QuoteNotInTheDesignFailsWithTheLongestMatchingPrefix) {
  EXPECT_EQ(check_design_quote(design_, "Carry the square action Q once"),
            "the quote \"Carry the square action Q once\" does not occur verbatim in the candidate "
            "design; the design has the first 26 characters, \"Carry the square action Q \", but "
            "not what follows");
  EXPECT_EQ(check_design_quote(design_, "compose the polynomial actions"),
            "the quote \"compose the polynomial actions\" does not occur verbatim in the candidate "
            "design");
}

TEST_F(JudgeDesignReply, ShortQuoteFails) {
  EXPECT_EQ(check_design_quote(design_, "compose"),
            "the quote \"compose\" is 7 characters long; quote at least 12 characters of the "
            "candidate's own wording");
}

TEST_F(JudgeDesignReply, ImplementationBandFailsForADesign) {
  const Verification v =
      verify({{"levels",
               {design_level("L1", 80, "substantial_implementation", {"Carry the square action Q"}),
                design_level("L2", 0, "absent", json::array()),
                design_level("L3", 0, "absent", json::array())}}});
  EXPECT_THAT(v.errors, ElementsAre(HasSubstr("L1: band \"substantial_implementation\" is not "
                                              "one of complete_design")));
}

}  // namespace
}  // namespace d2k::judge
