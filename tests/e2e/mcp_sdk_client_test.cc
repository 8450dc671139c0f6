// `d2k mcp` driven by the official MCP TypeScript SDK client (tests/mcp_client/client_test.mjs)
// through read, write, bash and submit on the cpu_scale_add fixture; the run, prepared with
// `d2k agent prepare`, ends when the client disconnects. CI installs the SDK
// (tools/run_tests.sh) and sets D2K_REQUIRE_MCP_CLIENT, which turns a missing SDK into a failure.
#include <sstream>

#include "d2k_run.h"
#include "store/agent_store.h"
#include "store/store.h"

namespace d2k::e2e {
namespace {

namespace fs = std::filesystem;

const fs::path kClientDir = fs::path(D2K_TEST_FIXTURES).parent_path() / "mcp_client";

std::optional<fs::path> find_node() {
  std::istringstream folders(getenv("PATH") != nullptr ? getenv("PATH") : "");
  std::string folder;
  while (std::getline(folders, folder, ':')) {
    if (access((fs::path(folder) / "node").c_str(), X_OK) == 0) return fs::path(folder) / "node";
  }
  return std::nullopt;
}

TEST(McpSdkClientTest, ReadWriteBashAndSubmitThroughTheOfficialClient) {
  const auto node = find_node();
  if (!node || !fs::exists(kClientDir / "node_modules" / "@modelcontextprotocol" / "sdk")) {
    const std::string missing = "the MCP SDK is not installed: run (cd tests/mcp_client && npm ci)";
    if (getenv("D2K_REQUIRE_MCP_CLIENT") != nullptr) FAIL() << missing;
    GTEST_SKIP() << missing;
  }
  D2kRun run;
  // The candidate sandbox hides the scratch root but for the worker's own folder; the default
  // root, the temp folder, also holds this test's workspace.
  fs::create_directories(run.dir() / "scratch");
  const std::string scratch = "D2K_SCRATCH=" + (run.dir() / "scratch").string();
  const fs::path workspace = run.dir() / "ws";
  const auto prepared = run.d2k({"--tasks", (kFixtures / "tasks").string(), "agent", "prepare",
                                 "cpu_scale_add", "--config", "none", "--workspace", workspace.string()});
  ASSERT_EQ(prepared.status, 0) << prepared.err;
  std::ofstream(run.dir() / "outside.txt") << "not for the agent";

  const auto result = run_process(
      fs::path("/usr/bin/env"),
      {scratch, node->string(),
       (kClientDir / "client_test.mjs").string(), kBinary.string(), run.store().string(),
       (kFixtures / "tasks").string(), workspace.string(),
       (kFixtures / "solutions" / "cpu_scale_add" / "correct.py").string()},
      run.dir());
  ASSERT_TRUE(result.exited);
  ASSERT_EQ(result.status, 0) << result.out << "\n" << result.err;
  const auto seen = nlohmann::json::parse(result.out);
  EXPECT_EQ(seen["tools"], nlohmann::json({"read", "write", "bash", "submit"}));
  EXPECT_GT(seen["evaluation_id"].get<int>(), 0);

  // The client disconnected: the run it drove is over, its submission selected, without
  // `d2k agent select`; the report scores it.
  const auto run_record = store::Store::open(run.store()).agent_runs().load_run(1);
  ASSERT_TRUE(run_record.has_value());
  EXPECT_EQ(run_record->status, "finished");
  EXPECT_TRUE(run_record->finished_at.has_value());
  EXPECT_EQ(run_record->final_evaluation_id, seen["evaluation_id"].get<int64_t>());
  const auto report = nlohmann::json::parse(run.d2k({"report", "--format", "json"}).out);
  ASSERT_FALSE(report["table1"]["rows"].empty()) << report.dump(2);
  EXPECT_EQ(report["table1"]["rows"].back()["implementation"], "(external client) / (default model)");
  EXPECT_EQ(report["table1"]["rows"].back()["correct"], 1);
}

}  // namespace
}  // namespace d2k::e2e
