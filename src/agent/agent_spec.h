#pragma once
// Which agent a run starts: Claude Code, Codex CLI, or any other command line.

#include <optional>
#include <string>

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

}  // namespace d2k::agent
