// `d2k agent prepare` on a real task (every configuration, nothing hidden leaks), and
// `d2k agent run` with the scripted fake agent (tests/agents/fake_agent.py) on a CPU fixture:
// a wrong submission, then a correct one; the budget; the final selection.
#include <set>

#include "d2k_run.h"

namespace d2k::e2e {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = fs::path(D2K_TEST_FIXTURES).parent_path().parent_path();
const fs::path kFakeAgent = kSourceDir / "tests" / "agents" / "fake_agent.py";

std::set<std::string> files_in(const fs::path& root) {
  std::set<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.insert(fs::relative(entry.path(), root).string());
  }
  return files;
}

TEST(AgentPrepareTest, FiveConfigurationsOfMuonAndNoHiddenFile) {
  D2kRun run;
  const fs::path task = kSourceDir / "tasks" / "muon_orthogonalization";
  // Everything in the task folder that an agent must never see.
  std::vector<std::string> hidden{read_file(task / "judge_criteria.md"), read_file(task / "baseline" / "solution.py"),
                                  read_file(task / "baseline" / "solution.cu"), read_file(task / "guidance.json")};
  const std::set<std::string> shared{"INSTRUCTIONS.md", "config.json", "get_inputs.py",
                                     "implementation_requirements.yaml", "reference.py", "task_description.md"};
  for (const std::string config : {"none", "L1", "L1+L2", "L1+L2+L3", "design"}) {
    SCOPED_TRACE(config);
    const fs::path workspace = run.dir() / ("ws-" + config);
    const auto result = run.d2k({"--tasks", (kSourceDir / "tasks").string(), "agent", "prepare",
                                 "muon_orthogonalization", "--config", config, "--workspace",
                                 workspace.string(), "--json"});
    ASSERT_EQ(result.status, 0) << result.err;
    const auto printed = nlohmann::json::parse(result.out);
    EXPECT_EQ(printed["config"], config);
    std::set<std::string> expected = shared;
    if (config == "design") {
      expected.insert({"DESIGN_BRIEF.md", "design_schema.json"});
    } else {
      expected.insert({"solution.py", "d2k/native_abi.h"});
      if (config != "none") expected.insert("guidance.json");
    }
    EXPECT_EQ(files_in(workspace), expected);
    for (const auto& file : files_in(workspace)) {
      const std::string content = read_file(workspace / file);
      for (const auto& secret : hidden) EXPECT_NE(content, secret) << file;
    }
  }
}

TEST(AgentPrepareTest, RefusesAGuidanceConfigurationWithoutGuidance) {
  D2kRun run;
  const fs::path tasks = run.dir() / "tasks";
  fs::create_directories(tasks);
  fs::copy(task_dir("cpu_scale_add"), tasks / "cpu_scale_add", fs::copy_options::recursive);
  fs::remove(tasks / "cpu_scale_add" / "guidance.json");
  const auto result = run.d2k({"--tasks", tasks.string(), "agent", "prepare", "cpu_scale_add",
                               "--config", "L1", "--workspace", (run.dir() / "ws").string()});
  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, "guidance.json")) << result.err;
}

// Points workers at a scratch root of their own for the object's life: the candidate sandbox
// hides the rest of the scratch root (by default the temp folder, which also holds the test's
// workspace).
class OwnScratchRoot {
 public:
  explicit OwnScratchRoot(const D2kRun& run) {
    fs::create_directories(run.dir() / "scratch");
    setenv("D2K_SCRATCH", (run.dir() / "scratch").c_str(), 1);
  }
  ~OwnScratchRoot() { unsetenv("D2K_SCRATCH"); }
  OwnScratchRoot(const OwnScratchRoot&) = delete;
  OwnScratchRoot& operator=(const OwnScratchRoot&) = delete;
};

// `d2k agent run cpu_scale_add --config none` with the fake agent; returns the --json outcome.
nlohmann::json run_fake_agent(const D2kRun& run, int budget, int expected_status) {
  const OwnScratchRoot scratch(run);
  const std::string agent = "/usr/bin/python3 " + kFakeAgent.string() + " --correct " +
                            (kFixtures / "solutions" / "cpu_scale_add" / "correct.py").string();
  const auto result = run.d2k({"--tasks", (kFixtures / "tasks").string(), "agent", "run", "cpu_scale_add",
                               "--config", "none", "--agent", agent, "--budget", std::to_string(budget),
                               "--timeout", "600", "--workspace", (run.dir() / "ws").string(), "--json"});
  EXPECT_EQ(result.status, expected_status) << result.err;
  try {
    return nlohmann::json::parse(result.out);
  } catch (const nlohmann::json::exception&) {
    ADD_FAILURE() << "not JSON:\n" << result.out << "\n" << result.err;
    return nullptr;
  }
}

TEST(AgentRunTest, FakeAgentTrajectorySelectsTheCorrectSubmission) {
  D2kRun run;
  const nlohmann::json outcome = run_fake_agent(run, 350, 0);
  ASSERT_TRUE(outcome.is_object());
  const auto& record = outcome["run"];
  EXPECT_EQ(record["status"], "finished");
  EXPECT_EQ(record["turns_used"], 5);  // read, submit, write, bash, submit
  EXPECT_EQ(record["turn_source"], "tool_calls");
  EXPECT_EQ(record["prompt_tokens"], 0);  // the fake agent's own report
  ASSERT_EQ(outcome["submissions"].size(), 2u);
  const auto& wrong = outcome["submissions"][0];
  const auto& right = outcome["submissions"][1];
  EXPECT_EQ(wrong["eligible"], false);
  EXPECT_EQ(wrong["turn"], 2);
  EXPECT_EQ(right["eligible"], true);
  EXPECT_EQ(right["turn"], 5);
  EXPECT_GT(right["geomean_speedup"].get<double>(), 0.0);
  EXPECT_EQ(outcome["final_submission"], 2);
  EXPECT_EQ(record["final_evaluation_id"], right["evaluation_id"]);
  EXPECT_EQ(record["baseline_evaluation_id"], right["baseline_evaluation_id"]);

  // Selecting again from the store gives the same answer.
  const auto again = run.d2k({"agent", "select", std::to_string(record["id"].get<int>()), "--json"});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["run"]["final_evaluation_id"], right["evaluation_id"]);
  // Both submissions are stored evaluations, each a snapshot outside the workspace.
  const auto stored = run.d2k({"results", "--json"});
  EXPECT_TRUE(contains(stored.out, "ws.submissions")) << stored.out;
}

TEST(AgentRunTest, TheBudgetStopsTheToolsAndNothingLaterCounts) {
  D2kRun run;
  // Turns: read, submit (the wrong template), write; then bash and the second submit are refused.
  const nlohmann::json outcome = run_fake_agent(run, 3, 1);
  ASSERT_TRUE(outcome.is_object());
  EXPECT_EQ(outcome["run"]["turns_used"], 3);
  ASSERT_EQ(outcome["submissions"].size(), 1u);
  EXPECT_EQ(outcome["submissions"][0]["eligible"], false);
  EXPECT_TRUE(outcome["final_submission"].is_null());
  EXPECT_TRUE(outcome["run"]["final_evaluation_id"].is_null());
}

TEST(AgentRunTest, SelectingAPreparedRunByHandEndsIt) {
  D2kRun run;
  const auto prepared = run.d2k({"--tasks", (kFixtures / "tasks").string(), "agent", "prepare", "cpu_scale_add",
                                 "--config", "none", "--workspace", (run.dir() / "ws").string()});
  ASSERT_EQ(prepared.status, 0) << prepared.err;
  const auto selected = run.d2k({"agent", "select", "1", "--json"});
  EXPECT_EQ(selected.status, 1);  // nothing was submitted
  const auto outcome = nlohmann::json::parse(selected.out);
  EXPECT_EQ(outcome["run"]["status"], "finished");
  EXPECT_TRUE(outcome["final_submission"].is_null());
}

TEST(AgentRunTest, AMissingAgentCliIsAClearError) {
  D2kRun run;
  const std::string saved_path = getenv("PATH");
  setenv("PATH", "/nonexistent", 1);
  const auto result = run.d2k({"--tasks", (kFixtures / "tasks").string(), "agent", "run", "cpu_scale_add",
                               "--config", "none", "--agent", "claude", "--workspace", (run.dir() / "ws").string()});
  setenv("PATH", saved_path.c_str(), 1);
  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, "Claude Code is not installed")) << result.err;
  EXPECT_FALSE(fs::exists(run.dir() / "ws"));  // checked before anything is staged
}

}  // namespace
}  // namespace d2k::e2e
