#include "mcp/stdio_server.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <sstream>

#include <gtest/gtest.h>

namespace d2k::mcp {
namespace {

using nlohmann::json;

// Returns bytes that are not UTF-8, as a command's output may.
class BinaryTool : public Tool {
 public:
  ToolSpec spec() const override {
    return {"binary", "Binary", "raw bytes", json{{"type", "object"}}, {.read_only = true}};
  }
  ToolResult call(const json&, std::stop_token) override { return {"ok \xff\xfe end", false, std::nullopt}; }
};

constexpr auto kSlowToolWait = std::chrono::seconds(20);

// Waits until it is cancelled (or, failing that, for kSlowToolWait).
class SlowTool : public Tool {
 public:
  ToolSpec spec() const override {
    return {"slow", "Slow", "waits", json{{"type", "object"}}, {.read_only = true}};
  }
  ToolResult call(const json&, std::stop_token stop) override {
    std::mutex mutex;
    std::condition_variable_any woken;
    std::unique_lock lock(mutex);
    woken.wait_for(lock, stop, kSlowToolWait, [] { return false; });
    return {stop.stop_requested() ? "stopped" : "waited", false, std::nullopt};
  }
};

std::vector<json> serve(const std::string& input, util::JsonLimits limits = {}) {
  std::vector<std::unique_ptr<Tool>> tools;
  tools.push_back(std::make_unique<BinaryTool>());
  tools.push_back(std::make_unique<SlowTool>());
  Dispatcher dispatcher({"d2k", "1.0", ""}, std::move(tools), nullptr);
  std::istringstream in(input);
  std::ostringstream out;
  StdioServer(dispatcher, in, out, limits).run();
  std::vector<json> replies;
  std::istringstream lines(out.str());
  std::string line;
  while (std::getline(lines, line)) replies.push_back(json::parse(line));  // throws if not JSON
  return replies;
}

TEST(StdioServerTest, OneReplyPerRequestLine) {
  const auto replies = serve(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})" "\r\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"ping"})" "\n");
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0]["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(replies[1]["id"], 2);
}

TEST(StdioServerTest, AnswersGarbageWithAParseError) {
  const auto replies = serve("{not json\n");
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0]["error"]["code"], -32700);
  EXPECT_FALSE(replies[0].contains("id"));  // unknown, so omitted (never null)
}

const std::string kPing = R"({"jsonrpc":"2.0","id":2,"method":"ping"})" "\n";

TEST(StdioServerTest, DeepNestingIsRefusedAndServingGoesOn) {
  // A notification nested 200,000 deep (about 400 KB), as a hostile client may send it.
  const std::string deep = R"({"jsonrpc":"2.0","method":"x","params":)" + std::string(200'000, '[') +
                           std::string(200'000, ']') + "}\n";
  const auto replies = serve(deep + kPing);
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0]["error"]["code"], -32700);
  EXPECT_NE(replies[0]["error"]["message"].get<std::string>().find("nested deeper"), std::string::npos);
  EXPECT_EQ(replies[1]["id"], 2);
}

TEST(StdioServerTest, ALineOverTheSizeLimitIsRefusedWithoutKeepingIt) {
  const std::string big = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")" +
                          std::string(5000, 'x') + "\"}}\n";
  const auto replies = serve(big + kPing, {.max_bytes = 1024, .max_depth = 8});
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0]["error"]["code"], -32700);
  EXPECT_NE(replies[0]["error"]["message"].get<std::string>().find("1024"), std::string::npos);
  EXPECT_EQ(replies[1]["id"], 2);
}

TEST(StdioServerTest, AnObjectWithoutMethodOrIdGetsInvalidRequest) {
  const auto replies = serve(R"({"jsonrpc":"2.0","params":{}})" "\n" + kPing);
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0]["error"]["code"], -32600);
  EXPECT_FALSE(replies[0].contains("id"));
}

TEST(StdioServerTest, InvalidUtf8BecomesReplacementCharacters) {
  const auto replies = serve(R"({"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"binary"}})" "\n");
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0]["result"]["content"][0]["text"], "ok \xEF\xBF\xBD\xEF\xBF\xBD end");
}

TEST(StdioServerTest, BatchesOnlyUnder20250326) {
  const std::string batch =
      R"([{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":3,"method":"ping"}])" "\n";
  const auto accepted = serve(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}})" "\n" + batch);
  ASSERT_EQ(accepted.size(), 2u);
  ASSERT_TRUE(accepted[1].is_array());
  EXPECT_EQ(accepted[1].size(), 2u);
  const auto refused = serve(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})" "\n" + batch);
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused[1]["error"]["code"], -32600);
}

TEST(StdioServerTest, ACancelledCallStopsAndIsNotAnswered) {
  const auto started = std::chrono::steady_clock::now();
  const auto replies = serve(
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}})" "\n"
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})" "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"binary"}})" "\n");
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0]["id"], 2);
  EXPECT_LT(std::chrono::steady_clock::now() - started, kSlowToolWait / 2);
}

}  // namespace
}  // namespace d2k::mcp
