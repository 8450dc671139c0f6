#include "mcp/dispatcher.h"

#include <stdexcept>

#include <fmt/format.h>

#include "mcp/protocol_version.h"
#include "mcp/rpc_error.h"

namespace d2k::mcp {
namespace {

using nlohmann::json;

constexpr const char* kVersionKey = "io.modelcontextprotocol/protocolVersion";
constexpr const char* kServerInfoKey = "io.modelcontextprotocol/serverInfo";
// How long a modern client may cache discover and tools/list answers; the tool set never changes
// while the server runs.
constexpr int kCacheMilliseconds = 3'600'000;

// A JSON-RPC request or notification error, raised while handling and turned into a response.
struct RpcFailure : std::runtime_error {
  RpcFailure(int code, const std::string& message, json data = nullptr)
      : std::runtime_error(message), code(code), data(std::move(data)) {}
  int code;
  json data;
};

// The modern revision's version, when the request carries one in params._meta.
std::optional<std::string> modern_version(const json& params) {
  if (!params.is_object() || !params.contains("_meta") || !params["_meta"].is_object()) {
    return std::nullopt;
  }
  const json& meta = params["_meta"];
  if (!meta.contains(kVersionKey)) return std::nullopt;
  if (!meta[kVersionKey].is_string()) throw RpcFailure(kInvalidParams, "_meta protocolVersion must be a string");
  return meta[kVersionKey].get<std::string>();
}

bool valid_id(const json& id) { return id.is_string() || id.is_number_integer(); }

std::string describe_violations(const std::vector<schema::Violation>& violations) {
  std::string text = "invalid arguments:";
  for (const auto& violation : violations) text += "\n  " + violation.to_string();
  return text;
}

}  // namespace

json error_response(const json& id, int code, const std::string& message, const json& data) {
  json error{{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = data;
  json response{{"jsonrpc", "2.0"}, {"error", error}};
  if (!id.is_null()) response["id"] = id;
  return response;
}

Dispatcher::Dispatcher(ServerInfo info, std::vector<std::unique_ptr<Tool>> tools,
                       CallObserver* observer)
    : info_(std::move(info)), observer_(observer) {
  for (auto& tool : tools) {
    ToolSpec spec = tool->spec();
    schema::Schema input_schema(spec.input_schema);
    tools_.push_back({std::move(tool), std::move(spec), std::move(input_schema)});
  }
}

std::optional<json> Dispatcher::handle(const json& message, std::stop_token stop) {
  if (!message.is_object()) return error_response(nullptr, kInvalidRequest, "a message must be a JSON object");
  const bool has_id = message.contains("id");
  const json id = has_id && valid_id(message["id"]) ? message["id"] : json(nullptr);
  if (!message.contains("method")) {
    if (has_id && (message.contains("result") || message.contains("error"))) {
      return std::nullopt;  // a response from the client
    }
    return error_response(id, kInvalidRequest, "not a JSON-RPC 2.0 request: no method");
  }
  if (message.value("jsonrpc", "") != "2.0" || !message["method"].is_string() ||
      (has_id && id.is_null())) {
    return has_id ? std::optional(error_response(id, kInvalidRequest, "not a JSON-RPC 2.0 request"))
                  : std::nullopt;
  }
  if (!has_id) return std::nullopt;  // notifications/initialized, cancelled (StdioServer), others
  const std::string method = message["method"];
  const json params = message.value("params", json::object());
  try {
    const std::optional<std::string> modern = modern_version(params);
    if (modern && *modern != kModernVersion) {
      throw RpcFailure(kUnsupportedProtocolVersion, "Unsupported protocol version",
                       {{"supported", supported_versions()}, {"requested", *modern}});
    }
    json result;
    if (method == "initialize") {
      result = initialize(params);
    } else if (method == "server/discover") {
      result = discover();
    } else if (method == "ping") {
      result = json::object();
    } else if (method == "tools/list") {
      result = list_tools(modern.has_value());
    } else if (method == "tools/call") {
      result = call_tool(params, stop);
    } else {
      throw RpcFailure(kMethodNotFound, "Method not found: " + method);
    }
    if (modern || method == "server/discover") {
      result["resultType"] = "complete";
      result["_meta"][kServerInfoKey] = {{"name", info_.name}, {"version", info_.version}};
    }
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}};
  } catch (const RpcFailure& failure) {
    return error_response(id, failure.code, failure.what(), failure.data);
  } catch (const std::exception& error) {
    return error_response(id, kInternalError, error.what());
  }
}

json Dispatcher::initialize(const json& params) {
  const json requested = params.value("protocolVersion", json());
  if (!requested.is_string()) throw RpcFailure(kInvalidParams, "initialize needs protocolVersion");
  negotiated_version_ = negotiate_version(requested.get<std::string>());
  json result{{"protocolVersion", negotiated_version_},
              {"capabilities", {{"tools", {{"listChanged", false}}}}},
              {"serverInfo", {{"name", info_.name}, {"version", info_.version}}}};
  if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
  return result;
}

json Dispatcher::discover() const {
  json result{{"supportedVersions", {kModernVersion}},
              {"capabilities", {{"tools", {{"listChanged", false}}}}},
              {"ttlMs", kCacheMilliseconds},
              {"cacheScope", "private"}};
  if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
  return result;
}

json Dispatcher::list_tools(bool modern) const {
  json tools = json::array();
  for (const auto& registered : tools_) {
    const ToolSpec& spec = registered.spec;
    json annotations{{"title", spec.title},
                     {"readOnlyHint", spec.hints.read_only},
                     {"openWorldHint", spec.hints.open_world}};
    if (!spec.hints.read_only) {
      annotations["destructiveHint"] = spec.hints.destructive;
      annotations["idempotentHint"] = spec.hints.idempotent;
    }
    tools.push_back({{"name", spec.name},
                     {"title", spec.title},
                     {"description", spec.description},
                     {"inputSchema", spec.input_schema},
                     {"annotations", annotations}});
  }
  json result{{"tools", tools}};
  if (modern) {
    result["ttlMs"] = kCacheMilliseconds;
    result["cacheScope"] = "private";
  }
  return result;
}

json Dispatcher::call_tool(const json& params, std::stop_token stop) {
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
    throw RpcFailure(kInvalidParams, "tools/call needs a tool name");
  }
  const std::string name = params["name"];
  RegisteredTool* tool = nullptr;
  for (auto& registered : tools_) {
    if (registered.spec.name == name) tool = &registered;
  }
  if (tool == nullptr) throw RpcFailure(kInvalidParams, "Unknown tool: " + name);
  const json arguments = params.value("arguments", json::object());

  std::optional<ToolResult> refusal;
  if (observer_ != nullptr) refusal = observer_->before_call(name, arguments);
  const ToolResult result = refusal ? *refusal : run_tool(*tool, arguments, stop);
  if (observer_ != nullptr) observer_->after_call(name, arguments, result);

  json reply{{"content", {{{"type", "text"}, {"text", result.text}}}}};
  if (result.is_error) reply["isError"] = true;
  if (result.structured) reply["structuredContent"] = *result.structured;
  return reply;
}

ToolResult Dispatcher::run_tool(RegisteredTool& tool, const json& arguments, std::stop_token stop) {
  const auto violations = tool.input_schema.validate(arguments);
  if (!violations.empty()) return ToolResult::error(describe_violations(violations));
  try {
    return tool.tool->call(arguments, stop);
  } catch (const std::exception& error) {
    return ToolResult::error(fmt::format("{} failed: {}", tool.spec.name, error.what()));
  }
}

}  // namespace d2k::mcp
