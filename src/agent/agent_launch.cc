#include "agent/agent_launch.h"

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "util/program_path.h"

namespace d2k::agent {
namespace fs = std::filesystem;
namespace {

// Codex offers a custom endpoint's tools under this provider id.
constexpr const char* kEndpointProvider = "d2k_endpoint";

void write_file(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

fs::path require_on_path(const std::string& program, const std::string& what) {
  const auto found = util::find_on_path(program);
  if (!found) {
    throw std::runtime_error(what + " is not installed here: `" + program +
                             "` is not on PATH. Install it, or give --agent a command line.");
  }
  return *found;
}

// The user's login file, copied (owner-only) into the run's own client folder.
void copy_login(const fs::path& from_folder, const fs::path& to_folder, const char* file) {
  std::error_code ignored;
  if (from_folder.empty() || !fs::is_regular_file(from_folder / file, ignored)) return;
  fs::create_directories(to_folder);
  fs::copy_file(from_folder / file, to_folder / file, fs::copy_options::overwrite_existing);
  fs::permissions(to_folder / file, fs::perms::owner_read | fs::perms::owner_write);
}

// The server keeps the user's home (build and compiler caches live there), whatever the
// client's own home is.
nlohmann::json server_environment(const LaunchRequest& request) {
  nlohmann::json environment = nlohmann::json::object();
  if (const auto home = lookup(request.environment, "HOME")) environment["HOME"] = *home;
  return environment;
}

nlohmann::json server_entry(const LaunchRequest& request) {
  return {{"type", "stdio"},
          {"command", request.mcp_command.front()},
          {"args", std::vector<std::string>(request.mcp_command.begin() + 1, request.mcp_command.end())},
          {"env", server_environment(request)}};
}

// A TOML basic string (JSON string escapes are valid TOML basic-string escapes).
std::string toml_string(const std::string& text) { return nlohmann::json(text).dump(); }

std::string toml_array(const std::vector<std::string>& items) {
  std::string text = "[";
  for (size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + toml_string(items[i]);
  return text + "]";
}

std::string toml_table(const nlohmann::json& object) {
  std::string text = "{ ";
  for (auto it = object.begin(); it != object.end(); ++it) {
    text += (it == object.begin() ? "" : ", ") + toml_string(it.key()) + " = " + toml_string(it.value());
  }
  return text + " }";
}

// Codex passes a stdio server only a few variables of its own environment; these are the rest
// of d2k's (the store, scratch, compiler and device settings), by name. Secrets stay behind,
// and so do the variables that locate a client's own configuration.
std::vector<std::string> forwarded_variables(const Environment& environment) {
  static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
  std::vector<std::string> names;
  for (const auto& [name, value] : environment) {
    if (name == "HOME" || name == "CODEX_HOME" || name == "CLAUDE_CONFIG_DIR") continue;
    if (is_secret_variable(name) || !std::regex_match(name, identifier)) continue;
    names.push_back(name);
  }
  return names;
}

LaunchPlan plan_claude(const LaunchRequest& request) {
  const fs::path program = require_on_path("claude", "Claude Code");
  const fs::path home = request.run_dir / "home";
  const fs::path config_dir = home / ".claude";
  fs::create_directories(config_dir);
  copy_login(user_claude_dir(request.environment), config_dir, kClaudeLoginFile);
  const fs::path config = request.run_dir / "mcp.json";
  write_file(config, nlohmann::json{{"mcpServers", {{kServerName, server_entry(request)}}}}.dump(2) + "\n");
  std::string allowed;
  for (const auto& tool : request.tool_names) {
    allowed += (allowed.empty() ? "" : ",") + std::string("mcp__") + kServerName + "__" + tool;
  }
  LaunchPlan plan;
  // Only d2k's tools: no built-in tools, no other MCP configuration, no settings files (user,
  // project or local), no skills or slash commands.
  plan.argv = {program.string(), "-p", request.prompt, "--output-format", "json",
               "--mcp-config", config.string(), "--strict-mcp-config", "--tools", "",
               "--allowedTools", allowed, "--setting-sources", "", "--disable-slash-commands",
               "--max-turns", std::to_string(request.turn_budget)};
  if (request.agent.model) {
    plan.argv.push_back("--model");
    plan.argv.push_back(*request.agent.model);
  }
  plan.environment = {{"HOME", home.string()},
                      {"CLAUDE_CONFIG_DIR", config_dir.string()},
                      // The model sees d2k's tools themselves, not a search for them.
                      {"ENABLE_TOOL_SEARCH", "false"},
                      {"CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1"},
                      // No telemetry, error reports, update checks: nothing but the model API.
                      {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"},
                      // A submission can take minutes; the client must not give up on the call.
                      {"MCP_TOOL_TIMEOUT", "3600000"},
                      {"MCP_TIMEOUT", "60000"}};
  return plan;
}

std::string codex_config(const LaunchRequest& request) {
  const auto endpoint = lookup(request.environment, "OPENAI_BASE_URL");
  std::ostringstream toml;
  // Only d2k's tools: Codex's own shell (both of its forms) is off so that every command runs
  // through d2k's sandboxed bash; whatever built-in remains can neither write nor reach the
  // network. No AGENTS.md from the workspace's folders, no update check.
  toml << "sandbox_mode = \"read-only\"\n"
       << "approval_policy = \"never\"\n"
       << "web_search = \"disabled\"\n"
       << "check_for_update_on_startup = false\n"
       << "project_doc_max_bytes = 0\n";
  if (endpoint) toml << "model_provider = " << toml_string(kEndpointProvider) << "\n";
  toml << "\n[features]\n"
       << "shell_tool = false\n"
       << "unified_exec = false\n"
       << "view_image = false\n"
       << "goals = false\n"
       << "sleep_tool = false\n"
       << "plugins = false\n"
       << "apps = false\n\n"
       // Models whose catalog entry selects code mode keep d2k's tools callable directly.
       << "[features.code_mode]\n"
       << "direct_only_tool_namespaces = [\"mcp__" << kServerName << "\"]\n\n"
       << "[agents]\n"
       << "enabled = false\n\n"
       << "[tools.experimental_request_user_input]\n"
       << "enabled = false\n\n"
       << "[skills]\n"
       << "include_instructions = false\n\n";
  if (endpoint) {
    toml << "[model_providers." << kEndpointProvider << "]\n"
         << "name = \"OpenAI-compatible endpoint\"\n"
         << "base_url = " << toml_string(*endpoint) << "\n"
         << "wire_api = \"responses\"\n"
         << "supports_websockets = false\n";
    if (lookup(request.environment, "OPENAI_API_KEY")) toml << "env_key = \"OPENAI_API_KEY\"\n";
    toml << "\n";
  }
  toml << "[mcp_servers." << kServerName << "]\n"
       << "command = " << toml_string(request.mcp_command.front()) << "\n"
       << "args = " << toml_array({request.mcp_command.begin() + 1, request.mcp_command.end()}) << "\n"
       << "env = " << toml_table(server_environment(request)) << "\n"
       << "env_vars = " << toml_array(forwarded_variables(request.environment)) << "\n"
       // Without it Codex may begin a turn before the tools are listed, without them.
       << "required = true\n"
       << "startup_timeout_sec = 60\n"
       << "tool_timeout_sec = 3600\n"
       << "enabled_tools = " << toml_array(request.tool_names) << "\n"
       // Approval policy "never" refuses any call that needs approval: these need none.
       << "default_tools_approval_mode = \"approve\"\n";
  return toml.str();
}

LaunchPlan plan_codex(const LaunchRequest& request) {
  const fs::path program = require_on_path("codex", "Codex CLI");
  const fs::path home = request.run_dir / "home";
  const fs::path codex_home = home / ".codex";
  write_file(codex_home / "config.toml", codex_config(request));
  copy_login(user_codex_home(request.environment), codex_home, kCodexLoginFile);
  LaunchPlan plan;
  // --strict-config: a setting this Codex does not know stops the run instead of being ignored.
  plan.argv = {program.string(), "exec", "--json", "--strict-config", "--skip-git-repo-check",
               "-C", request.workspace.string()};
  if (request.agent.model) {
    plan.argv.push_back("--model");
    plan.argv.push_back(*request.agent.model);
  }
  plan.argv.push_back(request.prompt);
  plan.environment = {{"HOME", home.string()}, {"CODEX_HOME", codex_home.string()}};
  // `codex exec` reads an API key from CODEX_API_KEY only.
  const auto openai_key = lookup(request.environment, "OPENAI_API_KEY");
  if (!lookup(request.environment, "OPENAI_BASE_URL") && !lookup(request.environment, "CODEX_API_KEY") &&
      openai_key) {
    plan.environment.emplace_back("CODEX_API_KEY", *openai_key);
  }
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
