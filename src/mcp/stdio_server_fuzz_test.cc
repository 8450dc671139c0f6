// A bounded random-input test of the MCP line parser and dispatcher: fixed seeds, so a failure
// reproduces, and a fixed number of rounds, so it fits CI. Every round feeds StdioServer a mix of
// random bytes, random JSON (some nested past the depth limit), JSON-RPC messages with random
// fields, and valid messages with bytes flipped, dropped or inserted. Whatever arrives, the
// server must not crash or hang, and every line it writes must be a well-formed JSON-RPC
// response.
#include <algorithm>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "mcp/stdio_server.h"

namespace d2k::mcp {
namespace {

using nlohmann::json;

constexpr int kRounds = 300;
constexpr int kLinesPerRound = 40;
constexpr util::JsonLimits kLimits{.max_bytes = 4096, .max_depth = 32};

class EchoTool : public Tool {
 public:
  ToolSpec spec() const override {
    return {"echo", "Echo", "echoes text",
            json::parse(R"({"type":"object","properties":{"text":{"type":"string"}},
                           "required":["text"],"additionalProperties":false})"),
            {.read_only = true}};
  }
  ToolResult call(const json& arguments, std::stop_token) override {
    return {arguments["text"].get<std::string>(), false, std::nullopt};
  }
};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  std::string line() {
    switch (pick(5)) {
      case 0: return random_bytes(pick(120));
      case 1: return text(random_value(pick(2) == 0 ? kLimits.max_depth + 1 + pick(40) : pick(8)));
      case 2: return mutate(valid_message().dump());
      default: return text(rpc_message());
    }
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  // Random strings may hold invalid UTF-8; the line carries U+FFFD instead.
  static std::string text(const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
  }

  std::string random_bytes(int length) {
    std::string bytes;
    for (int i = 0; i < length; ++i) {
      char c = static_cast<char>(pick(256));
      bytes.push_back(c == '\n' ? ' ' : c);
    }
    return bytes;
  }

  json random_scalar() {
    switch (pick(7)) {
      case 0: return nullptr;
      case 1: return pick(2) == 1;
      case 2: return pick(2000) - 1000;
      case 3: return pick(1000) / 7.0;
      case 4: return random_bytes(pick(12));  // invalid UTF-8 inside a string
      case 5: return "2025-03-26";
      default: return "x";
    }
  }

  // A value whose nesting reaches `depth` along one branch.
  json random_value(int depth) {
    json value = random_scalar();
    for (int level = 0; level < depth; ++level) {
      if (pick(2) == 0) {
        value = json::array({value, random_scalar()});
      } else {
        value = json{{"k" + std::to_string(pick(5)), value}};
      }
    }
    return value;
  }

  json random_id() {
    switch (pick(6)) {
      case 0: return nullptr;
      case 1: return json::object();
      case 2: return 1.5;
      case 3: return "id-" + std::to_string(pick(5));
      default: return pick(5);
    }
  }

  json rpc_message() {
    static const std::vector<std::string> methods{
        "initialize", "ping", "tools/list", "tools/call", "server/discover",
        "notifications/cancelled", "notifications/initialized", "resources/list", ""};
    json message = json::object();
    if (pick(5) != 0) message["jsonrpc"] = pick(8) == 0 ? json("1.0") : json("2.0");
    if (pick(4) != 0) message["id"] = random_id();
    if (pick(6) != 0) message["method"] = pick(8) == 0 ? random_scalar() : json(methods[pick(methods.size())]);
    if (pick(7) == 0) message["result"] = random_value(pick(3));
    switch (pick(6)) {
      case 0: break;
      case 1: message["params"] = random_value(pick(4)); break;
      case 2: message["params"] = {{"protocolVersion", pick(2) == 0 ? json("2025-03-26") : random_scalar()}}; break;
      case 3: message["params"] = {{"requestId", random_id()}}; break;
      case 4:
        message["params"] = {{"_meta", {{"io.modelcontextprotocol/protocolVersion",
                                         pick(2) == 0 ? json("2026-07-28") : random_scalar()}}}};
        break;
      default:
        message["params"] = {{"name", pick(3) == 0 ? random_scalar() : json("echo")},
                             {"arguments", pick(2) == 0 ? json{{"text", random_bytes(pick(20))}}
                                                        : random_value(pick(3))}};
    }
    if (pick(10) == 0) return json::array({message, rpc_message()});  // a batch
    return message;
  }

  json valid_message() {
    return {{"jsonrpc", "2.0"}, {"id", pick(100)}, {"method", "tools/call"},
            {"params", {{"name", "echo"}, {"arguments", {{"text", "hello"}}}}}};
  }

  std::string mutate(std::string text) {
    for (int edits = 1 + pick(4); edits > 0 && !text.empty(); --edits) {
      const size_t at = static_cast<size_t>(pick(static_cast<int>(text.size())));
      switch (pick(3)) {
        case 0: text.erase(at, 1); break;
        case 1: text.insert(at, 1, "{}[]\",:\\0"[pick(9)]); break;
        default: text[at] = static_cast<char>(pick(256));
      }
    }
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
  }

  std::mt19937_64 rng_;
};

// One response as the 2025-11-25 schema has it: an id that is a string or an integer when
// present (never null), and exactly one of result and error.
void expect_response(const json& reply) {
  ASSERT_TRUE(reply.is_object()) << reply;
  EXPECT_EQ(reply.value("jsonrpc", ""), "2.0") << reply;
  if (reply.contains("id")) {
    EXPECT_TRUE(reply["id"].is_string() || reply["id"].is_number_integer()) << reply;
  }
  EXPECT_NE(reply.contains("result"), reply.contains("error")) << reply;
  if (reply.contains("error")) {
    EXPECT_TRUE(reply["error"]["code"].is_number_integer()) << reply;
    EXPECT_TRUE(reply["error"]["message"].is_string()) << reply;
  }
}

TEST(StdioServerFuzzTest, RandomLinesGetWellFormedAnswersOrNone) {
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("seed " + std::to_string(round));
    Generator generate(static_cast<uint64_t>(round));
    std::string input;
    for (int i = 0; i < kLinesPerRound; ++i) input += generate.line() + "\n";

    std::vector<std::unique_ptr<Tool>> tools;
    tools.push_back(std::make_unique<EchoTool>());
    Dispatcher dispatcher({"d2k", "1.0", ""}, std::move(tools), nullptr);
    std::istringstream in(input);
    std::ostringstream out;
    StdioServer(dispatcher, in, out, kLimits).run();

    std::istringstream lines(out.str());
    std::string line;
    int replies = 0;
    while (std::getline(lines, line)) {
      ++replies;
      const json reply = json::parse(line, nullptr, /*allow_exceptions=*/false);
      ASSERT_FALSE(reply.is_discarded()) << line;
      if (reply.is_array()) {
        for (const auto& one : reply) expect_response(one);
      } else {
        expect_response(reply);
      }
    }
    EXPECT_LE(replies, kLinesPerRound);
  }
}

}  // namespace
}  // namespace d2k::mcp
