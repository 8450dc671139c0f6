#include "agent/client_credentials.h"

#include <gtest/gtest.h>

#include "agent/test_folder_test_util.h"

namespace d2k::agent {
namespace {

namespace fs = std::filesystem;

class ClientCredentialsTest : public ::testing::Test {
 protected:
  Environment home_only() const { return {{"HOME", home_.string()}}; }
  TestFolder folder_;
  fs::path home_ = folder_.path() / "home";
};

TEST_F(ClientCredentialsTest, NothingFoundSaysWhatToSetOrDo) {
  const CredentialCheck claude = check_credentials(AgentKind::claude, home_only());
  EXPECT_FALSE(claude.found);
  EXPECT_NE(claude.missing.find("ANTHROPIC_API_KEY"), std::string::npos);
  EXPECT_NE(claude.missing.find("CLAUDE_CODE_OAUTH_TOKEN"), std::string::npos);
  EXPECT_NE(claude.missing.find((home_ / ".claude" / ".credentials.json").string()), std::string::npos);
  const CredentialCheck codex = check_credentials(AgentKind::codex, home_only());
  EXPECT_FALSE(codex.found);
  EXPECT_NE(codex.missing.find("CODEX_API_KEY"), std::string::npos);
  EXPECT_NE(codex.missing.find("codex login"), std::string::npos);
  EXPECT_NE(codex.missing.find("OPENAI_BASE_URL"), std::string::npos);
  EXPECT_TRUE(check_credentials(AgentKind::command, {}).found);  // brings its own
}

TEST_F(ClientCredentialsTest, KeysTokensAndProvidersCount) {
  for (const char* name : {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
                           "CLAUDE_CODE_USE_BEDROCK"}) {
    const CredentialCheck check = check_credentials(AgentKind::claude, {{name, "x"}});
    EXPECT_TRUE(check.found) << name;
    EXPECT_EQ(check.source, std::string("$") + name);
  }
  EXPECT_FALSE(check_credentials(AgentKind::claude, {{"ANTHROPIC_API_KEY", ""}}).found);  // empty
  EXPECT_TRUE(check_credentials(AgentKind::codex, {{"CODEX_API_KEY", "x"}}).found);
  EXPECT_TRUE(check_credentials(AgentKind::codex, {{"OPENAI_API_KEY", "x"}}).found);
  // A local OpenAI-compatible server may need no key at all.
  const CredentialCheck local = check_credentials(AgentKind::codex, {{"OPENAI_BASE_URL", "http://127.0.0.1:8000/v1"}});
  EXPECT_TRUE(local.found);
  EXPECT_NE(local.source.find("http://127.0.0.1:8000/v1"), std::string::npos);
}

TEST_F(ClientCredentialsTest, ALoginInTheUsersClientFolderCounts) {
  write_text(home_ / ".claude" / ".credentials.json", "{}");
  write_text(home_ / ".codex" / "auth.json", "{}");
  EXPECT_TRUE(check_credentials(AgentKind::claude, home_only()).found);
  EXPECT_TRUE(check_credentials(AgentKind::codex, home_only()).found);
  // $CLAUDE_CONFIG_DIR and $CODEX_HOME move the folders.
  const fs::path elsewhere = folder_.path() / "elsewhere";
  fs::create_directories(elsewhere);
  Environment moved = home_only();
  moved["CLAUDE_CONFIG_DIR"] = elsewhere.string();
  moved["CODEX_HOME"] = elsewhere.string();
  EXPECT_FALSE(check_credentials(AgentKind::claude, moved).found);
  EXPECT_FALSE(check_credentials(AgentKind::codex, moved).found);
  EXPECT_EQ(user_claude_dir(moved), elsewhere);
  EXPECT_EQ(user_codex_home(home_only()), home_ / ".codex");
}

TEST(SecretVariableTest, NamesThatCarrySecrets) {
  for (const char* name : {"ANTHROPIC_API_KEY", "CODEX_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN",
                           "ANTHROPIC_AUTH_TOKEN", "GITHUB_TOKEN", "DB_PASSWORD", "aws_secret_access_key",
                           "GOOGLE_APPLICATION_CREDENTIALS"}) {
    EXPECT_TRUE(is_secret_variable(name)) << name;
  }
  for (const char* name : {"HOME", "PATH", "D2K_SCRATCH", "CUDA_VISIBLE_DEVICES", "OPENAI_BASE_URL",
                           "LD_LIBRARY_PATH"}) {
    EXPECT_FALSE(is_secret_variable(name)) << name;
  }
}

TEST(SecretVariableTest, DroppedFromThisProcess) {
  setenv("D2K_TEST_API_KEY", "secret", 1);
  setenv("D2K_TEST_PLAIN", "kept", 1);
  drop_secret_variables();
  EXPECT_EQ(std::getenv("D2K_TEST_API_KEY"), nullptr);
  ASSERT_NE(std::getenv("D2K_TEST_PLAIN"), nullptr);
  unsetenv("D2K_TEST_PLAIN");
}

}  // namespace
}  // namespace d2k::agent
