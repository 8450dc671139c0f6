#include "agent/agent_launch.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace d2k::agent {
namespace fs = std::filesystem;
namespace {

void write_file(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

fs::path require_on_path(const std::string& program, const std::string& what) {
  const auto found = find_on_path(program);
  if (!found) {
    throw std::runtime_error(what + " is not installed here: `" + program +
                             "` is not on PATH. Install it, or give --agent a command line.");
  }
  return *found;
}

nlohmann::json server_entry(const LaunchRequest& request) {
  return {{"type", "stdio"},
          {"command", request.mcp_command.front()},
          {"args", std::vector<std::string>(request.mcp_command.begin() + 1, request.mcp_command.end())}};
}

// A TOML basic string (JSON string escapes are valid TOML basic-string escapes).
std::string toml_string(const std::string& text) { return nlohmann::json(text).dump(); }

std::string toml_array(const std::vector<std::string>& items) {
  std::string text = "[";
  for (size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + toml_string(items[i]);
  return text + "]";
}

LaunchPlan plan_claude(const LaunchRequest& request) {
  const fs::path program = require_on_path("claude", "Claude Code");
  const fs::path config = request.run_dir / "mcp.json";
  write_file(config, nlohmann::json{{"mcpServers", {{kServerName, server_entry(request)}}}}.dump(2) + "\n");
  std::string allowed;
  for (const auto& tool : request.tool_names) {
    allowed += (allowed.empty() ? "" : ",") + std::string("mcp__") + kServerName + "__" + tool;
  }
  LaunchPlan plan;
  // Only d2k's tools: no built-in tools, no other MCP configuration.
  plan.argv = {program.string(), "-p", request.prompt, "--output-format", "json",
               "--mcp-config", config.string(), "--strict-mcp-config", "--tools", "",
               "--allowedTools", allowed, "--max-turns", std::to_string(request.turn_budget)};
  if (request.agent.model) {
    plan.argv.push_back("--model");
    plan.argv.push_back(*request.agent.model);
  }
  // A submission can take minutes; the client must not give up on the call.
  plan.environment = {{"MCP_TOOL_TIMEOUT", "3600000"}, {"MCP_TIMEOUT", "60000"}};
  return plan;
}

LaunchPlan plan_codex(const LaunchRequest& request) {
  const fs::path program = require_on_path("codex", "Codex CLI");
  const fs::path home = request.run_dir / "codex";
  std::ostringstream toml;
  // Only d2k's tools, as for Claude Code: Codex's own shell (both of its forms) is switched off
  // so that every command runs through d2k's sandboxed bash, and whatever built-in remains can
  // neither write nor reach the network.
  toml << "sandbox_mode = \"read-only\"\n"
       << "approval_policy = \"never\"\n"
       << "web_search = \"disabled\"\n\n"
       << "[features]\n"
       << "shell_tool = false\n"
       << "unified_exec = false\n\n"
       << "[mcp_servers." << kServerName << "]\n"
       << "command = " << toml_string(request.mcp_command.front()) << "\n"
       << "args = " << toml_array({request.mcp_command.begin() + 1, request.mcp_command.end()}) << "\n"
       << "startup_timeout_sec = 60\n"
       << "tool_timeout_sec = 3600\n"
       << "enabled_tools = " << toml_array(request.tool_names) << "\n";
  write_file(home / "config.toml", toml.str());
  // The run's own CODEX_HOME keeps the user's configuration out; the login carries over.
  const char* user_home_env = std::getenv("CODEX_HOME");
  const char* home_env = std::getenv("HOME");
  const fs::path user_home = user_home_env != nullptr ? fs::path(user_home_env)
                             : home_env != nullptr    ? fs::path(home_env) / ".codex"
                                                      : fs::path();
  if (!user_home.empty() && fs::exists(user_home / "auth.json")) {
    fs::copy_file(user_home / "auth.json", home / "auth.json", fs::copy_options::overwrite_existing);
  }
  LaunchPlan plan;
  plan.argv = {program.string(), "exec", "--json", "--skip-git-repo-check", "-C",
               request.workspace.string()};
  if (request.agent.model) {
    plan.argv.push_back("--model");
    plan.argv.push_back(*request.agent.model);
  }
  plan.argv.push_back(request.prompt);
  plan.environment = {{"CODEX_HOME", home.string()}};
  return plan;
}

LaunchPlan plan_command(const LaunchRequest& request) {
  const fs::path config = request.run_dir / "mcp.json";
  write_file(config, nlohmann::json{{"mcpServers", {{kServerName, server_entry(request)}}}}.dump(2) + "\n");
  LaunchPlan plan;
  plan.argv = {"bash", "-c", request.agent.command};
  plan.environment = {{"D2K_MCP_COMMAND", nlohmann::json(request.mcp_command).dump()},
                      {"D2K_MCP_CONFIG", config.string()},
                      {"D2K_WORKSPACE", request.workspace.string()},
                      {"D2K_PROMPT", request.prompt},
                      {"D2K_TURN_BUDGET", std::to_string(request.turn_budget)}};
  return plan;
}

}  // namespace

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

std::optional<fs::path> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::istringstream folders(path);
  std::string folder;
  while (std::getline(folders, folder, ':')) {
    const fs::path candidate = fs::path(folder.empty() ? "." : folder) / program;
    if (access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
  }
  return std::nullopt;
}

void require_agent_cli(const AgentSpec& agent) {
  if (agent.kind == AgentKind::claude) require_on_path("claude", "Claude Code");
  if (agent.kind == AgentKind::codex) require_on_path("codex", "Codex CLI");
}

LaunchPlan plan_launch(const LaunchRequest& request) {
  if (request.mcp_command.empty()) throw std::invalid_argument("plan_launch: no MCP server command");
  switch (request.agent.kind) {
    case AgentKind::claude: return plan_claude(request);
    case AgentKind::codex: return plan_codex(request);
    case AgentKind::command: return plan_command(request);
  }
  throw std::logic_error("unknown agent kind");
}

}  // namespace d2k::agent
