#include "agent/client_credentials.h"

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <string_view>

extern char** environ;

namespace d2k::agent {
namespace fs = std::filesystem;
namespace {

fs::path home_folder(const Environment& environment, const char* variable, const char* below_home) {
  if (const auto set = lookup(environment, variable)) return *set;
  const auto home = lookup(environment, "HOME");
  return home ? fs::path(*home) / below_home : fs::path();
}

// The first of `names` that is set, as a credential source.
std::optional<std::string> first_set(const Environment& environment,
                                     std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (lookup(environment, name)) return "$" + std::string(name);
  }
  return std::nullopt;
}

std::optional<std::string> login_file(const fs::path& folder, const char* file) {
  if (folder.empty()) return std::nullopt;
  std::error_code ignored;
  if (!fs::is_regular_file(folder / file, ignored)) return std::nullopt;
  return "the login in " + (folder / file).string();
}

CredentialCheck claude_credentials(const Environment& environment) {
  if (auto key = first_set(environment, {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
                                         "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK",
                                         "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"})) {
    return {true, *key, ""};
  }
  if (auto login = login_file(user_claude_dir(environment), kClaudeLoginFile)) return {true, *login, ""};
  return {false, "",
          "Claude Code has no credentials: set ANTHROPIC_API_KEY (an API key) or "
          "CLAUDE_CODE_OAUTH_TOKEN (a subscription's token from `claude setup-token`), or log in "
          "once with `claude` so that " +
              (user_claude_dir(environment) / kClaudeLoginFile).string() + " exists"};
}

CredentialCheck codex_credentials(const Environment& environment) {
  if (auto endpoint = lookup(environment, "OPENAI_BASE_URL")) {
    return {true, "the endpoint $OPENAI_BASE_URL (" + *endpoint + ")", ""};
  }
  if (auto key = first_set(environment, {"CODEX_API_KEY", "OPENAI_API_KEY"})) return {true, *key, ""};
  if (auto login = login_file(user_codex_home(environment), kCodexLoginFile)) return {true, *login, ""};
  return {false, "",
          "Codex has no credentials: set CODEX_API_KEY or OPENAI_API_KEY (an API key), log in "
          "once with `codex login` (a ChatGPT subscription) so that " +
              (user_codex_home(environment) / kCodexLoginFile).string() +
              " exists, or set OPENAI_BASE_URL to an OpenAI-compatible server"};
}

}  // namespace

Environment current_environment() {
  Environment environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const size_t equals = text.find('=');
    if (equals != std::string_view::npos) {
      environment.emplace(text.substr(0, equals), text.substr(equals + 1));
    }
  }
  return environment;
}

std::optional<std::string> lookup(const Environment& environment, const std::string& name) {
  const auto it = environment.find(name);
  if (it == environment.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

CredentialCheck check_credentials(AgentKind kind, const Environment& environment) {
  switch (kind) {
    case AgentKind::claude: return claude_credentials(environment);
    case AgentKind::codex: return codex_credentials(environment);
    case AgentKind::command: return {true, "the command's own", ""};
  }
  return {};
}

fs::path user_claude_dir(const Environment& environment) {
  return home_folder(environment, "CLAUDE_CONFIG_DIR", ".claude");
}

fs::path user_codex_home(const Environment& environment) {
  return home_folder(environment, "CODEX_HOME", ".codex");
}

bool is_secret_variable(const std::string& name) {
  static constexpr std::array<std::string_view, 6> kMarks{"KEY", "TOKEN", "SECRET", "PASSWORD",
                                                          "PASSWD", "CREDENTIAL"};
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  return std::any_of(kMarks.begin(), kMarks.end(),
                     [&](std::string_view mark) { return upper.find(mark) != std::string::npos; });
}

void drop_secret_variables() {
  for (const auto& [name, value] : current_environment()) {
    if (is_secret_variable(name)) unsetenv(name.c_str());
  }
}

}  // namespace d2k::agent
