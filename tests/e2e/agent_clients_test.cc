// The real agent clients end to end: `d2k agent run --agent claude` and `--agent codex`, with
// Claude Code and Codex CLI as installed from the lockfile in tests/agents/clients/, against
// loopback stand-ins of their model APIs (tests/agents/anthropic_standin.py for the Messages
// API, openai_standin.py for the Responses API) on cpu_demo_softmax. The stand-ins play one
// trajectory: read the instructions, write the expert's solution, run it with bash, submit,
// stop. d2k's generated configuration is used as it is; the clients are pointed at the
// stand-ins only through their base-URL and key variables. The user's own client configuration
// carries planted markers that must never reach a model request.
//
// CI installs the clients (tools/run_tests.sh) and sets D2K_REQUIRE_AGENT_CLIENTS, which turns a
// missing client into a failure.
#include <chrono>
#include <set>
#include <thread>

#include "d2k_run.h"
#include "store/agent_store.h"
#include "store/store.h"

namespace d2k::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSourceDir = fs::path(D2K_TEST_FIXTURES).parent_path().parent_path();
const fs::path kAgentsDir = kSourceDir / "tests" / "agents";
const fs::path kClientsBin = kAgentsDir / "clients" / "node_modules" / ".bin";
const fs::path kSolution = kSourceDir / "tasks" / "cpu_demo_softmax" / "expert" / "solution.py";
constexpr const char* kMarker = "D2K_PLANTED_MARKER";
constexpr const char* kKey = "sk-d2k-standin";

const std::vector<std::string> kD2kTools{"read", "write", "bash", "submit"};

// Sets or unsets environment variables for the object's life, restoring them after.
class ScopedEnvironment {
 public:
  void set(const std::string& name, const std::optional<std::string>& value) {
    const char* old = getenv(name.c_str());
    saved_.emplace_back(name, old != nullptr ? std::optional<std::string>(old) : std::nullopt);
    value ? setenv(name.c_str(), value->c_str(), 1) : unsetenv(name.c_str());
  }
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      it->second ? setenv(it->first.c_str(), it->second->c_str(), 1) : unsetenv(it->first.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// A user whose own Claude Code and Codex configuration says things no benchmark run may hear:
// instructions files, settings with a hook, a skill, memory, and instructions in the folders
// above the workspace.
void plant_user_configuration(const fs::path& home, const fs::path& project) {
  auto write = [](const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  };
  write(home / ".claude" / "CLAUDE.md", std::string(kMarker) + ": always answer in French.");
  write(home / ".claude" / "settings.json",
        R"({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo )" +
            std::string(kMarker) + " hook; touch " + (home / "hook-ran").string() + R"("}]}]}})");
  write(home / ".claude" / "skills" / "planted" / "SKILL.md",
        "---\nname: planted\ndescription: " + std::string(kMarker) + " skill\n---\nbody\n");
  write(home / ".claude" / "projects" / "memory" / "MEMORY.md", std::string(kMarker) + " memory");
  write(home / ".codex" / "AGENTS.md", std::string(kMarker) + ": always answer in French.");
  write(home / ".codex" / "config.toml",
        "developer_instructions = \"" + std::string(kMarker) + " developer\"\n");
  write(project / "CLAUDE.md", std::string(kMarker) + " project");
  write(project / "AGENTS.md", std::string(kMarker) + " project");
}

std::vector<json> read_log(const fs::path& log) {
  std::vector<json> entries;
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line)) entries.push_back(json::parse(line));
  return entries;
}

class AgentClientsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* client : {"claude", "codex"}) {
      if (!fs::exists(kClientsBin / client)) {
        const std::string missing = std::string(client) +
                                    " is not installed: run (cd tests/agents/clients && npm ci)";
        if (getenv("D2K_REQUIRE_AGENT_CLIENTS") != nullptr) FAIL() << missing;
        GTEST_SKIP() << missing;
      }
    }
    fs::create_directories(project_);
    fs::create_directories(run_.dir() / "scratch");
    plant_user_configuration(home_, project_);
    // Hermetic: the clients from the lockfile, this user's home, no credential of the machine's.
    environment_.set("PATH", kClientsBin.string() + ":" + getenv("PATH"));
    environment_.set("HOME", home_.string());
    environment_.set("D2K_SCRATCH", (run_.dir() / "scratch").string());
    for (const char* name : {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
                             "ANTHROPIC_BASE_URL", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "CODEX_API_KEY",
                             "OPENAI_API_KEY", "OPENAI_BASE_URL", "XDG_STATE_HOME"}) {
      environment_.set(name, std::nullopt);
    }
  }

  // Starts the stand-in `script` and returns its base URL once it listens.
  std::string start_standin(const std::string& script) {
    const fs::path port_file = run_.dir() / (script + ".port");
    standin_ = std::make_unique<BackgroundProcess>(
        "/usr/bin/python3",
        std::vector<std::string>{(kAgentsDir / script).string(), "--port-file", port_file.string(),
                                 "--log", log_.string(), "--solution", kSolution.string(),
                                 "--api-key", kKey},
        kAgentsDir, run_.dir() / (script + ".out"));
    for (int waited = 0; waited < 200 && !fs::exists(port_file); ++waited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!fs::exists(port_file)) throw std::runtime_error(script + " did not start");
    return "http://127.0.0.1:" + read_file(port_file);
  }

  RunResult agent_run(const std::string& agent, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"--tasks", (kSourceDir / "tasks").string(), "agent", "run",
                                  "cpu_demo_softmax", "--config", "none", "--agent", agent,
                                  "--workspace", workspace_.string(), "--timeout", "300", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_.d2k(args);
  }

  // What a client run must show: the tools, every call in d2k's record, the submission
  // evaluated and selected, usage, no marker, and the same numbers in the report.
  void expect_complete_run(const RunResult& result, const std::set<std::string>& offered_tools,
                           const std::string& row) {
    ASSERT_EQ(result.status, 0) << result.out << "\n" << result.err;
    const json outcome = json::parse(result.out);
    const json& run = outcome["run"];
    EXPECT_EQ(run["status"], "finished");

    const std::vector<json> requests = read_log(log_);
    int model_requests = 0;
    int64_t prompt_tokens = 0;
    int64_t completion_tokens = 0;
    for (const json& request : requests) {
      EXPECT_EQ(request.value("body", "").find(kMarker), std::string::npos)
          << "the user's own configuration reached the model: " << request.value("body", "");
      EXPECT_FALSE(request.contains("status")) << "refused: " << request.dump();
      if (!request.contains("tools")) continue;
      ++model_requests;
      prompt_tokens += request["input_tokens"].get<int64_t>();
      completion_tokens += request["output_tokens"].get<int64_t>();
      const auto tools = request["tools"].get<std::vector<std::string>>();
      EXPECT_EQ(std::set<std::string>(tools.begin(), tools.end()), offered_tools);
    }
    EXPECT_EQ(model_requests, 5);  // four tool calls and the final answer
    EXPECT_FALSE(fs::exists(home_ / "hook-ran"));

    // Every call reached d2k, in the trajectory's order, and none failed.
    const store::AgentStore agents = store::Store::open(run_.store()).agent_runs();
    std::vector<std::string> calls;
    for (const auto& event : agents.events(run["id"].get<int64_t>())) {
      if (event.kind == "call") calls.push_back(event.tool);
      if (event.kind == "result") EXPECT_FALSE(event.payload["is_error"].get<bool>()) << event.payload.dump();
    }
    EXPECT_EQ(calls, kD2kTools);

    // The submission was evaluated, is eligible and is the final one.
    ASSERT_EQ(outcome["submissions"].size(), 1u);
    const json& submission = outcome["submissions"][0];
    EXPECT_EQ(submission["eligible"], true) << submission.dump(2);
    EXPECT_EQ(outcome["final_submission"], 1);
    EXPECT_EQ(run["final_evaluation_id"], submission["evaluation_id"]);

    // Usage as the stand-in reported it, summed by the client and read by d2k.
    EXPECT_EQ(run["prompt_tokens"], prompt_tokens);
    EXPECT_EQ(run["completion_tokens"], completion_tokens);

    // The report reads the same run: its row, its usage and its final submission.
    const auto report = run_.d2k({"report", "--format", "json"});
    ASSERT_EQ(report.status, 0) << report.err;
    const json tables = json::parse(report.out);
    bool scored = false;
    for (const json& score : tables["table1"]["rows"]) {
      if (score["implementation"] != row || score["config"] != "none") continue;
      scored = true;
      EXPECT_EQ(score["correct"], 1);
      EXPECT_NEAR(score["sperf"].get<double>(), submission["geomean_speedup"].get<double>(), 1e-9);
    }
    EXPECT_TRUE(scored) << tables["table1"].dump(2);
    bool counted = false;
    for (const json& usage : tables["table6"]["rows"]) {
      if (usage["model"] != row || usage["config"] != "none") continue;
      counted = true;
      EXPECT_EQ(usage["runs"], 1);
      EXPECT_EQ(usage["prompt_tokens"], run["prompt_tokens"]);
      EXPECT_EQ(usage["completion_tokens"], run["completion_tokens"]);
    }
    EXPECT_TRUE(counted) << tables["table6"].dump(2);
    bool shown = false;
    for (const json& implementation : tables["task_views"][0]["implementations"]) {
      if (implementation["label"] == row + " (none)") {
        shown = true;
        EXPECT_EQ(implementation["evaluation_id"], run["final_evaluation_id"]);
      }
    }
    EXPECT_TRUE(shown) << tables["task_views"].dump(2);
  }

  // No credential anywhere: a clear agent_unavailable within seconds, and no run recorded.
  void expect_unavailable_without_credentials(const std::string& agent, const std::string& hint) {
    const auto started = std::chrono::steady_clock::now();
    const RunResult result = agent_run(agent);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
    EXPECT_EQ(result.status, 2);
    EXPECT_NE(result.err.find("agent_unavailable"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(hint), std::string::npos) << result.err;
    EXPECT_EQ(json::parse(result.out)["status"], "agent_unavailable");
    EXPECT_FALSE(fs::exists(workspace_));  // nothing staged
    EXPECT_TRUE(store::Store::open(run_.store()).agent_runs().runs().empty());
  }

  D2kRun run_;
  ScopedEnvironment environment_;
  fs::path home_ = run_.dir() / "user";
  fs::path project_ = run_.dir() / "project";
  fs::path workspace_ = project_ / "ws";
  fs::path log_ = run_.dir() / "requests.jsonl";
  std::unique_ptr<BackgroundProcess> standin_;
};

TEST_F(AgentClientsTest, ClaudeCodeWorksOnlyThroughD2ksTools) {
  environment_.set("ANTHROPIC_BASE_URL", start_standin("anthropic_standin.py"));
  environment_.set("ANTHROPIC_API_KEY", kKey);
  const RunResult result = agent_run("claude");
  expect_complete_run(result, {"mcp__d2k__read", "mcp__d2k__write", "mcp__d2k__bash", "mcp__d2k__submit"},
                      "claude / (default model)");
}

TEST_F(AgentClientsTest, CodexWorksOnlyThroughD2ksTools) {
  environment_.set("OPENAI_BASE_URL", start_standin("openai_standin.py") + "/v1");
  environment_.set("OPENAI_API_KEY", kKey);
  // A model without a catalog entry of its own; Codex adds its three MCP-resource helpers to any
  // MCP server's tools, and they reach only d2k's server, which has no resources.
  const RunResult result = agent_run("codex", {"--model", "standin"});
  expect_complete_run(result,
                      {"mcp__d2k__read", "mcp__d2k__write", "mcp__d2k__bash", "mcp__d2k__submit",
                       "list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"},
                      "codex / standin");
}

TEST_F(AgentClientsTest, ClaudeCodeWithoutCredentialsIsUnavailable) {
  expect_unavailable_without_credentials("claude", "ANTHROPIC_API_KEY");
}

TEST_F(AgentClientsTest, CodexWithoutCredentialsIsUnavailable) {
  expect_unavailable_without_credentials("codex", "CODEX_API_KEY");
}

TEST_F(AgentClientsTest, ACodexThatCannotAuthenticateIsUnavailableNotScored) {
  environment_.set("OPENAI_BASE_URL", start_standin("openai_standin.py") + "/v1");
  environment_.set("OPENAI_API_KEY", "sk-wrong");
  const RunResult result = agent_run("codex", {"--model", "standin"});
  EXPECT_EQ(result.status, 2) << result.err;
  EXPECT_NE(result.err.find("agent_unavailable"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("401"), std::string::npos) << result.err;
  const json outcome = json::parse(result.out);
  EXPECT_EQ(outcome["run"]["status"], "agent_unavailable");
  EXPECT_TRUE(outcome["submissions"].empty());
  const auto report = json::parse(run_.d2k({"report", "--format", "json"}).out);
  EXPECT_NE(report["missing"].dump().find("agent_unavailable"), std::string::npos);
  for (const json& score : report["table1"]["rows"]) EXPECT_EQ(score["implementation"].get<std::string>().find("codex"), std::string::npos);
}

}  // namespace
}  // namespace d2k::e2e
