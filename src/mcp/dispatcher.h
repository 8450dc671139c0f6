#pragma once
// The MCP method table of d2k's tool server, one message at a time and without I/O:
// initialize (legacy revisions, with version negotiation), server/discover and per-request
// _meta (the modern revision), ping, tools/list and tools/call. StdioServer frames the messages
// and runs slow calls off the reading thread.

#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mcp/call_observer.h"
#include "mcp/tool.h"
#include "schema/schema.h"

namespace d2k::mcp {

struct ServerInfo {
  std::string name;
  std::string version;
  std::string instructions;  // what clients may show the model about the tools
};

class Dispatcher {
 public:
  // `observer` may be null; otherwise it must outlive the dispatcher.
  Dispatcher(ServerInfo info, std::vector<std::unique_ptr<Tool>> tools, CallObserver* observer);

  // The response to one JSON-RPC message (not a batch), or nullopt when none is due
  // (notifications, and responses the client sent).
  std::optional<nlohmann::json> handle(const nlohmann::json& message, std::stop_token stop = {});

  // The version `initialize` settled on; empty before it (or for a modern-only client).
  const std::string& negotiated_version() const { return negotiated_version_; }

 private:
  struct RegisteredTool {
    std::unique_ptr<Tool> tool;
    ToolSpec spec;
    schema::Schema input_schema;
  };

  nlohmann::json initialize(const nlohmann::json& params);
  nlohmann::json discover() const;
  nlohmann::json list_tools(bool modern) const;
  nlohmann::json call_tool(const nlohmann::json& params, std::stop_token stop);
  ToolResult run_tool(RegisteredTool& tool, const nlohmann::json& arguments, std::stop_token stop);

  ServerInfo info_;
  std::vector<RegisteredTool> tools_;  // in registration order, which tools/list keeps
  CallObserver* observer_;
  std::string negotiated_version_;
};

// An error response; without an id when `id` is null (the request's id could not be read).
nlohmann::json error_response(const nlohmann::json& id, int code, const std::string& message,
                              const nlohmann::json& data = nullptr);

}  // namespace d2k::mcp
