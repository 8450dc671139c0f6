#include "agent/agent_launch.h"

#include <stdlib.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agent/test_folder_test_util.h"

namespace d2k::agent {
namespace {

namespace fs = std::filesystem;

// Sets PATH to a folder of fake agent CLIs for the test's duration.
class AgentLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* path = std::getenv("PATH");
    saved_path_ = path != nullptr ? path : "";
    fs::create_directories(bin_);
    setenv("PATH", bin_.c_str(), 1);
  }
  void TearDown() override { setenv("PATH", saved_path_.c_str(), 1); }

  void install(const std::string& program) {
    write_text(bin_ / program, "#!/bin/sh\n");
    fs::permissions(bin_ / program, fs::perms::owner_all);
  }

  LaunchRequest request(const std::string& agent) {
    return {AgentSpec::parse(agent, std::string("m1")), folder_.path() / "ws", folder_.path() / "run",
            {"/bin/d2k", "--store", "/s.sqlite", "mcp", "--workspace", "/ws", "--run", "4"},
            {"read", "write", "bash", "submit"}, "start", 350};
  }

  TestFolder folder_;
  fs::path bin_ = folder_.path() / "bin";
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
  const auto config = nlohmann::json::parse(read_text(folder_.path() / "run" / "mcp.json"));
  EXPECT_EQ(config["mcpServers"]["d2k"]["command"], "/bin/d2k");
  EXPECT_EQ(config["mcpServers"]["d2k"]["args"].back(), "4");
  auto after = [&](const std::string& flag) {
    const auto it = std::find(plan.argv.begin(), plan.argv.end(), flag);
    return it == plan.argv.end() || it + 1 == plan.argv.end() ? std::string("(absent)") : *(it + 1);
  };
  EXPECT_EQ(after("--allowedTools"), "mcp__d2k__read,mcp__d2k__write,mcp__d2k__bash,mcp__d2k__submit");
  EXPECT_EQ(after("--tools"), "");
  EXPECT_EQ(after("--model"), "m1");
  EXPECT_EQ(after("--max-turns"), "350");
  EXPECT_NE(std::find(plan.argv.begin(), plan.argv.end(), "--strict-mcp-config"), plan.argv.end());
}

TEST_F(AgentLaunchTest, CodexGetsItsOwnHomeWithTheServerTable) {
  install("codex");
  const LaunchPlan plan = plan_launch(request("codex"));
  const std::string toml = read_text(folder_.path() / "run" / "codex" / "config.toml");
  EXPECT_NE(toml.find("[mcp_servers.d2k]\ncommand = \"/bin/d2k\"\n"), std::string::npos);
  EXPECT_NE(toml.find("args = [\"--store\", \"/s.sqlite\", \"mcp\""), std::string::npos);
  EXPECT_NE(toml.find("enabled_tools = [\"read\", \"write\", \"bash\", \"submit\"]"), std::string::npos);
  // No built-in shell: commands go through d2k's sandboxed bash tool only.
  EXPECT_NE(toml.find("[features]\nshell_tool = false\nunified_exec = false\n"), std::string::npos);
  EXPECT_NE(toml.find("sandbox_mode = \"read-only\"\n"), std::string::npos);
  EXPECT_LT(toml.find("sandbox_mode"), toml.find("[features]"));  // top-level keys before tables
  ASSERT_EQ(plan.environment.size(), 1u);
  EXPECT_EQ(plan.environment[0].first, "CODEX_HOME");
  EXPECT_EQ(plan.argv[1], "exec");
  EXPECT_EQ(plan.argv.back(), "start");
}

TEST_F(AgentLaunchTest, ACommandAgentIsToldHowToStartTheServer) {
  const LaunchPlan plan = plan_launch(request("python3 my_agent.py --fast"));
  EXPECT_EQ(plan.argv, (std::vector<std::string>{"bash", "-c", "python3 my_agent.py --fast"}));
  bool found = false;
  for (const auto& [key, value] : plan.environment) {
    if (key == "D2K_MCP_COMMAND") {
      found = true;
      EXPECT_EQ(nlohmann::json::parse(value)[3], "mcp");
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(AgentSpec::parse("python3 my_agent.py --fast", std::nullopt).name(), "python3 my_agent.py --fast");
}

}  // namespace
}  // namespace d2k::agent
