#include "mcp/dispatcher.h"

#include <gtest/gtest.h>

#include "mcp/rpc_error.h"

namespace d2k::mcp {
namespace {

using nlohmann::json;

// Echoes its `text` argument; fails when asked to.
class EchoTool : public Tool {
 public:
  ToolSpec spec() const override {
    return {"echo", "Echo", "echoes text",
            json::parse(R"({"type":"object","properties":{"text":{"type":"string"}},
                           "required":["text"],"additionalProperties":false})"),
            {.read_only = true, .destructive = false, .idempotent = true, .open_world = false}};
  }
  ToolResult call(const json& arguments, std::stop_token) override {
    if (arguments["text"] == "throw") throw std::runtime_error("asked to throw");
    return {arguments["text"].get<std::string>(), false, std::nullopt};
  }
};

// Refuses every call after the first `allowed`, and remembers what it saw.
class CountingObserver : public CallObserver {
 public:
  explicit CountingObserver(int allowed) : allowed_(allowed) {}
  std::optional<ToolResult> before_call(const std::string&, const json&) override {
    if (++calls_ > allowed_) return ToolResult::error("budget spent");
    return std::nullopt;
  }
  void after_call(const std::string& tool, const json&, const ToolResult& result) override {
    seen_.push_back(tool + (result.is_error ? ":error" : ":ok"));
  }
  std::vector<std::string> seen_;

 private:
  int allowed_;
  int calls_ = 0;
};

std::vector<std::unique_ptr<Tool>> echo_only() {
  std::vector<std::unique_ptr<Tool>> tools;
  tools.push_back(std::make_unique<EchoTool>());
  return tools;
}

json request(const json& id, const std::string& method, const json& params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

json call(const std::string& tool, const json& arguments) {
  return request(7, "tools/call", {{"name", tool}, {"arguments", arguments}});
}

class DispatcherTest : public ::testing::Test {
 protected:
  Dispatcher dispatcher{{"d2k", "1.0", "use the tools"}, echo_only(), nullptr};
};

TEST_F(DispatcherTest, EchoesEverySupportedLegacyVersion) {
  for (const char* version : {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}) {
    const json reply = *dispatcher.handle(request(1, "initialize", {{"protocolVersion", version}}));
    EXPECT_EQ(reply["result"]["protocolVersion"], version);
    EXPECT_EQ(reply["result"]["serverInfo"]["name"], "d2k");
    EXPECT_TRUE(reply["result"]["capabilities"].contains("tools"));
    EXPECT_EQ(reply["result"]["instructions"], "use the tools");
  }
}

TEST_F(DispatcherTest, OffersTheLatestForAnUnknownVersion) {
  const json reply = *dispatcher.handle(request(1, "initialize", {{"protocolVersion", "2023-01-01"}}));
  EXPECT_EQ(reply["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(dispatcher.negotiated_version(), "2025-11-25");
}

TEST_F(DispatcherTest, KeepsTheIdAndItsType) {
  EXPECT_EQ((*dispatcher.handle(request("abc", "ping")))["id"], "abc");
  const json numeric = *dispatcher.handle(request(42, "ping"));
  EXPECT_TRUE(numeric["id"].is_number_integer());
  EXPECT_EQ(numeric["result"], json::object());
}

TEST_F(DispatcherTest, NotificationsGetNoReply) {
  EXPECT_FALSE(dispatcher.handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
  EXPECT_FALSE(dispatcher.handle({{"jsonrpc", "2.0"}, {"method", "notifications/whatever"}}));
}

TEST_F(DispatcherTest, RejectsMalformedRequests) {
  EXPECT_EQ((*dispatcher.handle(json::array()))["error"]["code"], kInvalidRequest);
  EXPECT_EQ((*dispatcher.handle({{"jsonrpc", "1.0"}, {"id", 1}, {"method", "ping"}}))["error"]["code"],
            kInvalidRequest);
  const json null_id = *dispatcher.handle({{"jsonrpc", "2.0"}, {"id", nullptr}, {"method", "ping"}});
  EXPECT_EQ(null_id["error"]["code"], kInvalidRequest);
  EXPECT_EQ((*dispatcher.handle(request(1, "resources/list")))["error"]["code"], kMethodNotFound);
}

TEST_F(DispatcherTest, AnObjectWithoutMethodOrIdIsAnInvalidRequest) {
  for (const json& message : {json{{"jsonrpc", "2.0"}}, json{{"jsonrpc", "2.0"}, {"params", {{"a", 1}}}},
                              json::object()}) {
    const auto reply = dispatcher.handle(message);
    ASSERT_TRUE(reply) << message;
    EXPECT_EQ((*reply)["error"]["code"], kInvalidRequest);
    EXPECT_FALSE(reply->contains("id"));
  }
  // With an id but neither a method nor a result, it is still not a request, and the id is kept.
  const json with_id = *dispatcher.handle({{"jsonrpc", "2.0"}, {"id", 9}});
  EXPECT_EQ(with_id["error"]["code"], kInvalidRequest);
  EXPECT_EQ(with_id["id"], 9);
}

TEST_F(DispatcherTest, ResponsesFromTheClientGetNoReply) {
  EXPECT_FALSE(dispatcher.handle({{"jsonrpc", "2.0"}, {"id", 3}, {"result", json::object()}}));
  EXPECT_FALSE(dispatcher.handle({{"jsonrpc", "2.0"}, {"id", 4}, {"error", {{"code", 1}, {"message", "x"}}}}));
}

TEST_F(DispatcherTest, ErrorsWithoutAReadableIdOmitIt) {
  // The 2025-11-25 schema allows no null id; an error whose request id is unknown has none.
  const json null_id = *dispatcher.handle({{"jsonrpc", "2.0"}, {"id", nullptr}, {"method", "ping"}});
  EXPECT_FALSE(null_id.contains("id"));
  const json object_id = *dispatcher.handle({{"jsonrpc", "2.0"}, {"id", {{"a", 1}}}, {"method", "ping"}});
  EXPECT_FALSE(object_id.contains("id"));
  EXPECT_FALSE(dispatcher.handle(json::array())->contains("id"));
  EXPECT_FALSE(error_response(nullptr, kParseError, "bad").contains("id"));
  EXPECT_EQ(error_response("x", kParseError, "bad")["id"], "x");
}

TEST_F(DispatcherTest, ListsToolsWithTheirSchemas) {
  const json reply = *dispatcher.handle(request(1, "tools/list"));
  ASSERT_EQ(reply["result"]["tools"].size(), 1u);
  EXPECT_EQ(reply["result"]["tools"][0]["name"], "echo");
  EXPECT_EQ(reply["result"]["tools"][0]["inputSchema"]["type"], "object");
  EXPECT_EQ(reply["result"]["tools"][0]["annotations"]["readOnlyHint"], true);
  EXPECT_FALSE(reply["result"].contains("resultType"));  // legacy clients get legacy results
}

TEST(DispatcherToolListTest, ToolsCarryTitlesAndEveryHint) {
  class WritingTool : public Tool {
   public:
    ToolSpec spec() const override {
      return {"put", "Put a value", "replaces a value", json{{"type", "object"}},
              {.read_only = false, .destructive = true, .idempotent = true, .open_world = false}};
    }
    ToolResult call(const json&, std::stop_token) override { return {"", false, std::nullopt}; }
  };
  std::vector<std::unique_ptr<Tool>> tools = echo_only();
  tools.push_back(std::make_unique<WritingTool>());
  Dispatcher dispatcher({"d2k", "1.0", ""}, std::move(tools), nullptr);
  const json listed = (*dispatcher.handle(request(1, "tools/list")))["result"]["tools"];
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0]["title"], "Echo");
  EXPECT_EQ(listed[0]["annotations"],
            json({{"title", "Echo"}, {"readOnlyHint", true}, {"openWorldHint", false}}));
  EXPECT_EQ(listed[1]["title"], "Put a value");
  EXPECT_EQ(listed[1]["annotations"],
            json({{"title", "Put a value"}, {"readOnlyHint", false}, {"destructiveHint", true},
                  {"idempotentHint", true}, {"openWorldHint", false}}));
}

TEST_F(DispatcherTest, CallsATool) {
  const json reply = *dispatcher.handle(call("echo", {{"text", "hello"}}));
  EXPECT_EQ(reply["result"]["content"][0]["type"], "text");
  EXPECT_EQ(reply["result"]["content"][0]["text"], "hello");
  EXPECT_FALSE(reply["result"].contains("isError"));
}

TEST_F(DispatcherTest, UnknownToolIsAProtocolError) {
  const json reply = *dispatcher.handle(call("nope", json::object()));
  EXPECT_EQ(reply["error"]["code"], kInvalidParams);
  EXPECT_EQ(reply["error"]["message"], "Unknown tool: nope");
}

TEST_F(DispatcherTest, BadArgumentsAreToolErrors) {
  const json reply = *dispatcher.handle(call("echo", {{"text", 3}}));
  EXPECT_EQ(reply["result"]["isError"], true);
  EXPECT_NE(reply["result"]["content"][0]["text"].get<std::string>().find("/text"), std::string::npos);
  const json extra = *dispatcher.handle(call("echo", {{"text", "a"}, {"other", 1}}));
  EXPECT_EQ(extra["result"]["isError"], true);
}

TEST_F(DispatcherTest, AThrowingToolIsAToolError) {
  const json reply = *dispatcher.handle(call("echo", {{"text", "throw"}}));
  EXPECT_EQ(reply["result"]["isError"], true);
  EXPECT_EQ(reply["result"]["content"][0]["text"], "echo failed: asked to throw");
}

TEST_F(DispatcherTest, AnswersDiscoverInTheModernStyle) {
  const json reply = *dispatcher.handle(request(1, "server/discover"));
  const json& result = reply["result"];
  EXPECT_EQ(result["supportedVersions"], json::array({"2026-07-28"}));
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_TRUE(result.contains("ttlMs"));
  EXPECT_TRUE(result.contains("cacheScope"));
  EXPECT_EQ(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "d2k");
}

TEST_F(DispatcherTest, ServesModernRequestsStatelessly) {
  const json meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                  {"io.modelcontextprotocol/clientCapabilities", json::object()}};
  const json list = *dispatcher.handle(request(1, "tools/list", {{"_meta", meta}}));
  EXPECT_EQ(list["result"]["resultType"], "complete");
  EXPECT_TRUE(list["result"].contains("ttlMs"));
  const json called = *dispatcher.handle(
      request(2, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}, {"_meta", meta}}));
  EXPECT_EQ(called["result"]["resultType"], "complete");
  EXPECT_EQ(called["result"]["content"][0]["text"], "x");
}

TEST_F(DispatcherTest, RejectsAnUnknownModernVersion) {
  const json meta{{"io.modelcontextprotocol/protocolVersion", "2099-01-01"}};
  const json reply = *dispatcher.handle(request(1, "tools/list", {{"_meta", meta}}));
  EXPECT_EQ(reply["error"]["code"], kUnsupportedProtocolVersion);
  EXPECT_EQ(reply["error"]["data"]["requested"], "2099-01-01");
  EXPECT_EQ(reply["error"]["data"]["supported"],
            json::array({"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}));
}

TEST(DispatcherObserverTest, ObserverCanRefuseAndSeesEveryCall) {
  CountingObserver observer(1);
  Dispatcher dispatcher({"d2k", "1.0", ""}, echo_only(), &observer);
  EXPECT_FALSE(dispatcher.handle(call("echo", {{"text", "a"}}))->at("result").contains("isError"));
  const json refused = *dispatcher.handle(call("echo", {{"text", "b"}}));
  EXPECT_EQ(refused["result"]["isError"], true);
  EXPECT_EQ(refused["result"]["content"][0]["text"], "budget spent");
  EXPECT_EQ(observer.seen_, (std::vector<std::string>{"echo:ok", "echo:error"}));
}

}  // namespace
}  // namespace d2k::mcp
