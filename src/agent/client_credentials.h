#pragma once
// Where Claude Code and Codex find what they authenticate with, checked before a run starts (so
// a client that could not log in is reported, never recorded as a run that failed), and what
// of the user's own client folders a run carries over: the login only.

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "agent/agent_spec.h"

namespace d2k::agent {

// An environment as names and values: d2k's own (current_environment()), or a test's.
using Environment = std::map<std::string, std::string>;

Environment current_environment();

// The value of `name` when it is set and not empty.
std::optional<std::string> lookup(const Environment& environment, const std::string& name);

struct CredentialCheck {
  bool found = false;
  std::string source;   // what the client will authenticate with, when found
  std::string missing;  // what to set or do, when not
};

// Claude Code: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN, a third-party
// provider (CLAUDE_CODE_USE_BEDROCK, _VERTEX, _FOUNDRY), or the login file of the user's own
// Claude Code folder. Codex: an OpenAI-compatible endpoint (OPENAI_BASE_URL, whose key is
// optional), CODEX_API_KEY or OPENAI_API_KEY, or the login file of the user's Codex home. Any
// other agent is a command that brings its own and is not checked.
CredentialCheck check_credentials(AgentKind kind, const Environment& environment);

// The user's own client folders: $CLAUDE_CONFIG_DIR or ~/.claude, $CODEX_HOME or ~/.codex.
std::filesystem::path user_claude_dir(const Environment& environment);
std::filesystem::path user_codex_home(const Environment& environment);

// The login files in them, which a run's own client folder gets a copy of.
inline constexpr const char* kClaudeLoginFile = ".credentials.json";
inline constexpr const char* kCodexLoginFile = "auth.json";

// Variables that carry a secret (API keys, tokens, passwords), by their names.
bool is_secret_variable(const std::string& name);

// Removes the secret variables from this process's environment: `d2k mcp` does, so that
// neither the agent's `bash` nor a submission's workers can read the client's credentials.
void drop_secret_variables();

}  // namespace d2k::agent
