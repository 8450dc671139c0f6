#include "judge/batch_manifest.h"

#include <stdexcept>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace d2k::judge {
namespace {

using nlohmann::json;

std::string error_of(const json& manifest) {
  try {
    parse_batch_manifest(manifest, "/runs/r1");
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(JudgeBatchManifest, ReadsItemsWithPathsFromTheManifestsFolder) {
  const auto items = parse_batch_manifest(json::parse(R"([
        {"kind": "impl", "task": "muon_orthogonalization", "solution": "guided/solution.py",
         "correct": false},
        {"kind": "impl", "task": "cpu_demo_softmax", "solution": "/abs/solution.py"},
        {"kind": "design", "task": "muon_orthogonalization", "design": "model_design.json"}
      ])"),
                                          "/runs/r1");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].kind, record::JudgeKind::impl);
  EXPECT_EQ(items[0].candidate, "/runs/r1/guided/solution.py");
  EXPECT_EQ(items[0].correct, false);
  EXPECT_EQ(items[1].candidate, "/abs/solution.py");
  EXPECT_FALSE(items[1].correct.has_value());
  EXPECT_EQ(items[2].kind, record::JudgeKind::design);
  EXPECT_EQ(items[2].candidate, "/runs/r1/model_design.json");
}

TEST(JudgeBatchManifest, NamesTheItemAndFieldOfAProblem) {
  EXPECT_EQ(error_of(json::object()), "the batch manifest must be a JSON array of items");
  EXPECT_EQ(error_of(json::parse(R"([{"kind": "impl", "task": "t", "solution": "s"}, 3])")),
            "batch manifest item 1: must be an object");
  EXPECT_EQ(error_of(json::parse(R"([{"kind": "review", "task": "t", "solution": "s"}])")),
            "batch manifest item 0: \"kind\" must be \"impl\" or \"design\", got \"review\"");
  EXPECT_EQ(error_of(json::parse(R"([{"kind": "design", "task": "t", "solution": "s"}])")),
            "batch manifest item 0: \"design\" must be a non-empty string");
  EXPECT_EQ(error_of(json::parse(R"([{"kind": "design", "task": "t", "design": "d",
                                      "correct": true}])")),
            "batch manifest item 0: unexpected field \"correct\"");
  EXPECT_EQ(error_of(json::parse(R"([{"kind": "impl", "task": "t", "solution": "s",
                                      "correct": "yes"}])")),
            "batch manifest item 0: \"correct\" must be true or false");
}

}  // namespace
}  // namespace d2k::judge
