#pragma once
// JSON-RPC 2.0 error codes, and the two MCP adds for its modern (2026-07-28) requests.

namespace d2k::mcp {

inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kUnsupportedProtocolVersion = -32022;

}  // namespace d2k::mcp
