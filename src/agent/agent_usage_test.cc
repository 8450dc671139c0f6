#include "agent/agent_usage.h"

#include <gtest/gtest.h>

namespace d2k::agent {
namespace {

TEST(AgentUsageTest, ClaudeResultObject) {
  const auto usage = parse_claude_usage(
      "not json\n"
      R"({"type":"result","subtype":"success","num_turns":7,"total_cost_usd":0.42,)"
      R"("usage":{"input_tokens":10,"cache_creation_input_tokens":20,"cache_read_input_tokens":30,"output_tokens":5}})");
  EXPECT_EQ(usage.prompt_tokens, 60);
  EXPECT_EQ(usage.completion_tokens, 5);
  EXPECT_EQ(usage.cost_usd, 0.42);
  EXPECT_EQ(usage.turns, 7);
}

TEST(AgentUsageTest, CodexTurnEventsAreSummed) {
  const auto usage = parse_codex_usage(
      R"({"type":"thread.started"})" "\n"
      R"({"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":7}})" "\n"
      R"({"type":"turn.completed","usage":{"input_tokens":50,"output_tokens":3}})" "\n");
  EXPECT_EQ(usage.prompt_tokens, 150);
  EXPECT_EQ(usage.completion_tokens, 10);
  EXPECT_FALSE(usage.turns);
}

TEST(AgentUsageTest, CommandAgentReportsItsOwn) {
  const auto usage = parse_command_usage("log line\n" R"({"d2k_usage":{"prompt_tokens":3,"completion_tokens":4,"turns":2}})");
  EXPECT_EQ(usage.prompt_tokens, 3);
  EXPECT_EQ(usage.completion_tokens, 4);
  EXPECT_EQ(usage.turns, 2);
}

TEST(AgentUsageTest, AHostileLineIsSkipped) {
  // What an agent prints is read within the JSON limits: a line nested deeper is skipped, and
  // the usage line after it still counts.
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  const auto usage = parse_command_usage(deep + "\n" + R"({"d2k_usage":{"prompt_tokens":3}})");
  EXPECT_EQ(usage.prompt_tokens, 3);
}

TEST(AgentUsageTest, NothingReportedIsNothingKnown) {
  const auto usage = parse_claude_usage("plain text\n");
  EXPECT_FALSE(usage.prompt_tokens);
  EXPECT_FALSE(usage.completion_tokens);
  EXPECT_FALSE(usage.cost_usd);
  EXPECT_FALSE(parse_codex_usage("").prompt_tokens);
}

}  // namespace
}  // namespace d2k::agent
