#include "agent/agent_spec.h"

namespace d2k::agent {

AgentSpec AgentSpec::parse(const std::string& text, std::optional<std::string> model) {
  AgentSpec spec;
  spec.model = std::move(model);
  if (text == "claude") {
    spec.kind = AgentKind::claude;
  } else if (text == "codex") {
    spec.kind = AgentKind::codex;
  } else {
    spec.kind = AgentKind::command;
    spec.command = text;
  }
  return spec;
}

std::string AgentSpec::name() const {
  switch (kind) {
    case AgentKind::claude: return "claude";
    case AgentKind::codex: return "codex";
    case AgentKind::command: return command;
  }
  return command;
}

}  // namespace d2k::agent
