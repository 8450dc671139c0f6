#pragma once
// How an agent CLI is started on a workspace: its MCP client configuration pointing at
// `d2k mcp`, its command line, and its environment (docs/agent.md, "Running agents").
//
// Claude Code and Codex each run in a home of their own in the run folder, so nothing of the
// user's own client configuration (instructions files, settings, hooks, skills, memory, other
// MCP servers) reaches the model; only the login is copied in. Their built-in tools are
// switched off as far as each client allows, so the model works through d2k's tools. Any other
// command is run with bash and told how to start the server through environment variables.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "agent/agent_spec.h"
#include "agent/client_credentials.h"

namespace d2k::agent {

struct LaunchRequest {
  AgentSpec agent;
  std::filesystem::path workspace;
  std::filesystem::path run_dir;          // client configuration and logs; outside the workspace
  std::vector<std::string> mcp_command;   // argv that starts `d2k mcp` for this run
  std::vector<std::string> tool_names;    // the server's tools, which the client may call
  std::string prompt;
  int turn_budget = 0;
  Environment environment;  // d2k's own: where the user's login, home and endpoint settings are
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

}  // namespace d2k::agent
