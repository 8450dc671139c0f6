#pragma once
// MCP's stdio transport: one JSON-RPC message per line in, one per line out, nothing else on the
// output. Tool calls run on one worker thread, in arrival order, so the reader keeps answering
// ping and sees notifications/cancelled while a long `submit` runs. A line larger or nested
// deeper than the limits is answered with a parse error, never parsed.

#include <istream>
#include <ostream>

#include "mcp/dispatcher.h"
#include "util/bounded_json.h"

namespace d2k::mcp {

class StdioServer {
 public:
  StdioServer(Dispatcher& dispatcher, std::istream& in, std::ostream& out,
              util::JsonLimits limits = {})
      : dispatcher_(dispatcher), in_(in), out_(out), limits_(limits) {}

  // Serves until the input ends, then answers the calls already read and returns.
  void run();

 private:
  Dispatcher& dispatcher_;
  std::istream& in_;
  std::ostream& out_;
  util::JsonLimits limits_;
};

// One message as its line: compact, invalid UTF-8 replaced by U+FFFD, no newline inside.
std::string frame(const nlohmann::json& message);

}  // namespace d2k::mcp
