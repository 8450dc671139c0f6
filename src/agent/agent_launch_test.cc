#include "agent/agent_launch.h"

#include <stdlib.h>

#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agent/test_folder_test_util.h"

namespace d2k::agent {
namespace {

namespace fs = std::filesystem;

// Sets PATH to a folder of fake agent CLIs for the test's duration; the user's home is a folder
// of the test with the clients' own configuration in it.
class AgentLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* path = std::getenv("PATH");
    saved_path_ = path != nullptr ? path : "";
    fs::create_directories(bin_);
    setenv("PATH", bin_.c_str(), 1);
    write_text(user_home_ / ".claude" / "CLAUDE.md", "the user's own instructions");
    write_text(user_home_ / ".claude" / "settings.json", R"({"hooks": {}})");
    write_text(user_home_ / ".codex" / "config.toml", "model = \"the user's\"\n");
    write_text(user_home_ / ".codex" / "AGENTS.md", "the user's own instructions");
  }
  void TearDown() override { setenv("PATH", saved_path_.c_str(), 1); }

  void install(const std::string& program) {
    write_text(bin_ / program, "#!/bin/sh\n");
    fs::permissions(bin_ / program, fs::perms::owner_all);
  }

  LaunchRequest request(const std::string& agent, Environment extra = {}) {
    Environment environment{{"HOME", user_home_.string()}, {"PATH", bin_.string()},
                            {"D2K_SCRATCH", "/scratch"}, {"CUDA_VISIBLE_DEVICES", "0"}};
    for (auto& [key, value] : extra) environment[key] = value;
    return {AgentSpec::parse(agent, std::string("m1")), folder_.path() / "ws", run_dir_,
            {"/bin/d2k", "--store", "/s.sqlite", "mcp", "--workspace", "/ws", "--run", "4"},
            {"read", "write", "bash", "submit"}, "start", 350, environment};
  }

  static std::string after(const LaunchPlan& plan, const std::string& flag) {
    const auto it = std::find(plan.argv.begin(), plan.argv.end(), flag);
    return it == plan.argv.end() || it + 1 == plan.argv.end() ? std::string("(absent)") : *(it + 1);
  }
  static std::string env(const LaunchPlan& plan, const std::string& name) {
    for (const auto& [key, value] : plan.environment) {
      if (key == name) return value;
    }
    return "(unset)";
  }
  static bool has(const LaunchPlan& plan, const std::string& flag) {
    return std::find(plan.argv.begin(), plan.argv.end(), flag) != plan.argv.end();
  }
  static bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }

  TestFolder folder_;
  fs::path bin_ = folder_.path() / "bin";
  fs::path user_home_ = folder_.path() / "user";
  fs::path run_dir_ = folder_.path() / "run";
  std::string saved_path_;
};

TEST_F(AgentLaunchTest, AMissingCliIsAClearError) {
  try {
    plan_launch(request("claude"));
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("Claude Code is not installed"), std::string::npos);
  }
  EXPECT_THROW(plan_launch(request("codex")), std::runtime_error);
}

TEST_F(AgentLaunchTest, ClaudeGetsAnMcpConfigAndOnlyD2kTools) {
  install("claude");
  const LaunchPlan plan = plan_launch(request("claude"));
  EXPECT_EQ(plan.argv[0], (bin_ / "claude").string());
  const auto config = nlohmann::json::parse(read_text(run_dir_ / "mcp.json"));
  EXPECT_EQ(config["mcpServers"]["d2k"]["command"], "/bin/d2k");
  EXPECT_EQ(config["mcpServers"]["d2k"]["args"].back(), "4");
  EXPECT_EQ(after(plan, "--allowedTools"), "mcp__d2k__read,mcp__d2k__write,mcp__d2k__bash,mcp__d2k__submit");
  EXPECT_EQ(after(plan, "--tools"), "");
  EXPECT_EQ(after(plan, "--model"), "m1");
  EXPECT_EQ(after(plan, "--max-turns"), "350");
  EXPECT_TRUE(has(plan, "--strict-mcp-config"));
  // MCP tools are offered themselves, not found through a search tool.
  EXPECT_EQ(env(plan, "ENABLE_TOOL_SEARCH"), "false");
}

TEST_F(AgentLaunchTest, ClaudeRunsInAHomeOfItsOwnWithOnlyTheLoginCopied) {
  install("claude");
  write_text(user_home_ / ".claude" / ".credentials.json", R"({"login": "yes"})");
  const LaunchPlan plan = plan_launch(request("claude"));
  const fs::path home = run_dir_ / "home";
  EXPECT_EQ(env(plan, "HOME"), home.string());
  EXPECT_EQ(env(plan, "CLAUDE_CONFIG_DIR"), (home / ".claude").string());
  EXPECT_EQ(read_text(home / ".claude" / ".credentials.json"), R"({"login": "yes"})");
  EXPECT_FALSE(fs::exists(home / ".claude" / "CLAUDE.md"));
  EXPECT_FALSE(fs::exists(home / ".claude" / "settings.json"));
  // No settings files of any scope, no skills or slash commands, no memory, no extra traffic.
  EXPECT_EQ(after(plan, "--setting-sources"), "");
  EXPECT_TRUE(has(plan, "--disable-slash-commands"));
  EXPECT_EQ(env(plan, "CLAUDE_CODE_DISABLE_AUTO_MEMORY"), "1");
  EXPECT_EQ(env(plan, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"), "1");
  // The tool server keeps the user's home, whatever the client's is.
  const auto config = nlohmann::json::parse(read_text(run_dir_ / "mcp.json"));
  EXPECT_EQ(config["mcpServers"]["d2k"]["env"]["HOME"], user_home_.string());
}

TEST_F(AgentLaunchTest, CodexGetsItsOwnHomeWithTheServerTable) {
  install("codex");
  const LaunchPlan plan = plan_launch(request("codex"));
  const fs::path codex_home = run_dir_ / "home" / ".codex";
  const std::string toml = read_text(codex_home / "config.toml");
  EXPECT_TRUE(contains(toml, "[mcp_servers.d2k]\ncommand = \"/bin/d2k\"\n")) << toml;
  EXPECT_TRUE(contains(toml, "args = [\"--store\", \"/s.sqlite\", \"mcp\""));
  EXPECT_TRUE(contains(toml, "enabled_tools = [\"read\", \"write\", \"bash\", \"submit\"]"));
  // No built-in shell: commands go through d2k's sandboxed bash tool only.
  EXPECT_TRUE(contains(toml, "[features]\nshell_tool = false\nunified_exec = false\n"));
  EXPECT_TRUE(contains(toml, "sandbox_mode = \"read-only\"\n"));
  EXPECT_LT(toml.find("sandbox_mode"), toml.find("[features]"));  // top-level keys before tables
  EXPECT_EQ(env(plan, "CODEX_HOME"), codex_home.string());
  EXPECT_EQ(env(plan, "HOME"), (run_dir_ / "home").string());
  EXPECT_EQ(plan.argv[1], "exec");
  EXPECT_TRUE(has(plan, "--strict-config"));  // a setting this Codex does not know stops the run
  EXPECT_EQ(plan.argv.back(), "start");
}

TEST_F(AgentLaunchTest, CodexApprovesD2ksToolsUnderItsNeverApprovalPolicy) {
  install("codex");
  plan_launch(request("codex"));
  const std::string toml = read_text(run_dir_ / "home" / ".codex" / "config.toml");
  EXPECT_TRUE(contains(toml, "approval_policy = \"never\"\n"));
  const std::string server = toml.substr(toml.find("[mcp_servers.d2k]"));
  EXPECT_TRUE(contains(server, "default_tools_approval_mode = \"approve\"\n")) << server;
  // The turn must not start before the server's tools are listed.
  EXPECT_TRUE(contains(server, "required = true\n"));
}

TEST_F(AgentLaunchTest, CodexOffersNothingBeyondD2ksToolsThatItCanSwitchOff) {
  install("codex");
  plan_launch(request("codex"));
  const std::string toml = read_text(run_dir_ / "home" / ".codex" / "config.toml");
  for (const char* off : {"view_image = false\n", "goals = false\n", "sleep_tool = false\n",
                          "plugins = false\n", "apps = false\n", "web_search = \"disabled\"\n",
                          "[agents]\nenabled = false\n",
                          "[tools.experimental_request_user_input]\nenabled = false\n",
                          "[skills]\ninclude_instructions = false\n", "project_doc_max_bytes = 0\n",
                          "check_for_update_on_startup = false\n",
                          "direct_only_tool_namespaces = [\"mcp__d2k\"]\n"}) {
    EXPECT_TRUE(contains(toml, off)) << off;
  }
  EXPECT_FALSE(contains(toml, "model_provider"));  // the API Codex chooses itself
}

TEST_F(AgentLaunchTest, CodexCarriesTheLoginAndD2ksEnvironmentButNoSecret) {
  install("codex");
  write_text(user_home_ / ".codex" / "auth.json", R"({"tokens": "x"})");
  const LaunchPlan plan = plan_launch(request("codex", {{"OPENAI_API_KEY", "sk-1"}, {"D2K_JUDGE_API_KEY", "j"}}));
  const fs::path codex_home = run_dir_ / "home" / ".codex";
  EXPECT_EQ(read_text(codex_home / "auth.json"), R"({"tokens": "x"})");
  EXPECT_FALSE(fs::exists(codex_home / "AGENTS.md"));
  const std::string toml = read_text(codex_home / "config.toml");
  EXPECT_FALSE(contains(toml, "the user's"));
  const std::string server = toml.substr(toml.find("[mcp_servers.d2k]"));
  EXPECT_TRUE(contains(server, "env = { \"HOME\" = \"" + user_home_.string() + "\" }")) << server;
  EXPECT_TRUE(contains(server, "\"CUDA_VISIBLE_DEVICES\"")) << server;
  EXPECT_TRUE(contains(server, "\"D2K_SCRATCH\"")) << server;
  EXPECT_FALSE(contains(toml, "API_KEY"));
  EXPECT_FALSE(contains(toml, "sk-1"));
  // `codex exec` takes an API key from CODEX_API_KEY only.
  EXPECT_EQ(env(plan, "CODEX_API_KEY"), "sk-1");
}

TEST_F(AgentLaunchTest, CodexTalksToAnOpenAICompatibleEndpointWhenOneIsSet) {
  install("codex");
  const LaunchPlan plan = plan_launch(
      request("codex", {{"OPENAI_BASE_URL", "http://127.0.0.1:8000/v1"}, {"OPENAI_API_KEY", "local"}}));
  const std::string toml = read_text(run_dir_ / "home" / ".codex" / "config.toml");
  EXPECT_TRUE(contains(toml, "model_provider = \"d2k_endpoint\"\n"));
  EXPECT_TRUE(contains(toml, "[model_providers.d2k_endpoint]\n"));
  EXPECT_TRUE(contains(toml, "base_url = \"http://127.0.0.1:8000/v1\"\n"));
  EXPECT_TRUE(contains(toml, "wire_api = \"responses\"\n"));
  EXPECT_TRUE(contains(toml, "supports_websockets = false\n"));
  EXPECT_TRUE(contains(toml, "env_key = \"OPENAI_API_KEY\"\n"));
  EXPECT_EQ(env(plan, "CODEX_API_KEY"), "(unset)");  // the endpoint's key is its own

  // A local server without a key: no key is asked for.
  plan_launch(request("codex", {{"OPENAI_BASE_URL", "http://127.0.0.1:8000/v1"}}));
  EXPECT_FALSE(contains(read_text(run_dir_ / "home" / ".codex" / "config.toml"), "env_key"));
}

TEST_F(AgentLaunchTest, ACommandAgentIsToldHowToStartTheServer) {
  const LaunchPlan plan = plan_launch(request("python3 my_agent.py --fast"));
  EXPECT_EQ(plan.argv, (std::vector<std::string>{"bash", "-c", "python3 my_agent.py --fast"}));
  EXPECT_EQ(nlohmann::json::parse(env(plan, "D2K_MCP_COMMAND"))[3], "mcp");
  EXPECT_EQ(AgentSpec::parse("python3 my_agent.py --fast", std::nullopt).name(), "python3 my_agent.py --fast");
}

}  // namespace
}  // namespace d2k::agent
