#pragma once
// How an agent CLI is started on a workspace: its MCP client configuration pointing at
// `d2k mcp`, its command line, and its environment. Claude Code gets a --mcp-config file (the
// .mcp.json format), Codex a config.toml with an [mcp_servers.d2k] table in a CODEX_HOME of its
// own; any other command is run with bash and told how to start the server through environment
// variables.

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace d2k::agent {

enum class AgentKind { claude, codex, command };

struct AgentSpec {
  AgentKind kind = AgentKind::command;
  std::string command;  // the command line, for AgentKind::command
  std::optional<std::string> model;

  // "claude", "codex", or the command line of any other agent.
  static AgentSpec parse(const std::string& text, std::optional<std::string> model);
  // What agent_runs.agent records: "claude", "codex" or the command line.
  std::string name() const;
};

struct LaunchRequest {
  AgentSpec agent;
  std::filesystem::path workspace;
  std::filesystem::path run_dir;          // client configuration and logs; outside the workspace
  std::vector<std::string> mcp_command;   // argv that starts `d2k mcp` for this run
  std::vector<std::string> tool_names;    // the server's tools, which the client may call
  std::string prompt;
  int turn_budget = 0;
};

struct LaunchPlan {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> environment;  // added to d2k's own
};

// The server's name in the clients' configuration; tools appear as mcp__d2k__<tool>.
inline constexpr const char* kServerName = "d2k";

// Writes the client's configuration into request.run_dir and returns how to start it. Throws
// std::runtime_error when the agent's CLI is not on PATH.
LaunchPlan plan_launch(const LaunchRequest& request);

// Throws std::runtime_error, saying what to install, when the agent's CLI is not on PATH.
void require_agent_cli(const AgentSpec& agent);

// The full path of `program` found on PATH, or nullopt.
std::optional<std::filesystem::path> find_on_path(const std::string& program);

}  // namespace d2k::agent
