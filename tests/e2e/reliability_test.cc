// The reliability suite (docs/protocol.md, "Threat model"): each case reproduces a defect found
// by attacking d2k on a CPU machine (hostile candidates, kill -9 mid-run, broken tasks, careless
// use) through the real `d2k` binary, and asserts what must happen instead.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "d2k_run.h"

namespace d2k::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

// A copy of a fixture task inside a folder that looks like a repository, with a `.git` holding
// what a candidate must never read; the folders are open to every user, as a checkout is.
fs::path repository_copy(const fs::path& root, const std::string& task) {
  const fs::path repo = root / "repo";
  fs::create_directories(repo / "tasks");
  fs::copy(task_dir(task), repo / "tasks" / task, fs::copy_options::recursive);
  write(repo / ".git" / "objects" / "answer", "the expert's solution, from the history");
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    fs::permissions(entry.path(), entry.is_directory() ? fs::perms::all : fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  }
  fs::permissions(root, fs::perms::all);
  return repo / "tasks" / task;
}

json evaluate(const D2kRun& run, const fs::path& task, const fs::path& solution,
              std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"eval", task.string(), "--solution", solution.string(), "--quick", "--json", "--no-store"};
  args.insert(args.end(), extra.begin(), extra.end());
  const RunResult result = run.d2k(args);
  return parse_evaluation(result);
}

std::string first_message(const json& record) {
  for (const auto& workload : record.at("workloads")) {
    if (!workload.value("message", "").empty()) return workload.at("message");
  }
  return "";
}

// Defects 1 and 5: the candidate read the expert through the repository's `.git`, and
// /etc/shadow as uid 0. Now neither exists in its filesystem.
TEST(Reliability, ACandidateSeesNeitherTheRepositoryNorTheHostsSecrets) {
  D2kRun run;
  const fs::path task = repository_copy(run.dir(), "cpu_scale_add");
  const fs::path git = task.parent_path().parent_path() / ".git" / "objects" / "answer";
  const fs::path other_store = run.dir() / "other-store.sqlite";
  const fs::path solution = run.dir() / "peek" / "peek.py";
  write(solution, "from pathlib import Path\n\n\ndef run(x, y, alpha):\n    seen = []\n"
                  "    for path in ['" + git.string() + "', '/etc/shadow', '" + other_store.string() + "']:\n"
                  "        try:\n            seen.append(path + '=' + Path(path).read_text()[:60])\n"
                  "        except Exception as error:\n            seen.append(path + ':' + type(error).__name__)\n"
                  "    raise RuntimeError('SEEN ' + ' | '.join(seen))\n");
  fs::permissions(solution.parent_path(), fs::perms::all);
  write(other_store, "another store");
  const json record = evaluate(run, task, solution);
  const std::string message = first_message(record);
  ASSERT_NE(message.find("SEEN"), std::string::npos) << record.dump(2);
  EXPECT_EQ(message.find("from the history"), std::string::npos) << message;
  EXPECT_EQ(message.find("root:"), std::string::npos) << message;
  EXPECT_EQ(message.find("another store"), std::string::npos) << message;
  const std::string sandbox = record.value("sandbox", "");
  EXPECT_NE(sandbox.find("minimal root"), std::string::npos) << sandbox;
  EXPECT_NE(sandbox.find("limits in force"), std::string::npos) << sandbox;
}

// Every process below `root`, from /proc.
std::vector<pid_t> descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const pid_t pid = std::atoi(entry.path().filename().c_str());
    if (pid <= 0) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto end = stat.rfind(')');
    if (end == std::string::npos) continue;
    char state = 0;
    pid_t parent = 0;
    if (std::sscanf(stat.c_str() + end + 1, " %c %d", &state, &parent) == 2) children.emplace(parent, pid);
  }
  std::vector<pid_t> found{root};
  for (size_t i = 0; i < found.size(); ++i) {
    const auto [first, last] = children.equal_range(found[i]);
    for (auto it = first; it != last; ++it) found.push_back(it->second);
  }
  found.erase(found.begin());
  return found;
}

bool alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto end = stat.rfind(')');
  return end != std::string::npos && stat.size() > end + 2 && stat[end + 2] != 'Z';
}

bool exists_below(const fs::path& folder, const std::string& name) {
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(folder, error); !error && it != fs::end(it); it.increment(error)) {
    if (it->path().filename() == name) return true;
  }
  return false;
}

// Defect 2: kill -9 of `d2k eval` while the candidate spins left the worker spinning. Now every
// process of the evaluation ends with it, with or without the sandbox; and the scratch folder
// the killed run left is removed by the next run (defect 9).
void kill_mid_run(const std::vector<std::string>& extra) {
  D2kRun run;
  const fs::path scratch = run.dir() / "scratch";
  fs::create_directories(scratch);
  const fs::path solution = run.dir() / "spin" / "spin.py";
  write(solution, "import os\nfrom pathlib import Path\n\n\ndef run(x, y, alpha):\n"
                  "    Path(os.environ['TMPDIR'], 'spinning').write_text('yes')\n"
                  "    while True:\n        pass\n");
  fs::permissions(solution.parent_path(), fs::perms::all);
  setenv("D2K_SCRATCH", scratch.c_str(), 1);
  std::vector<std::string> args{"--store", run.store().string(), "eval", task_dir("cpu_scale_add").string(),
                                "--solution", solution.string(), "--quick", "--no-store"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<pid_t> tree;
  {
    BackgroundProcess d2k(kBinary, args, run.dir(), run.dir() / "eval.log");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!exists_below(scratch, "spinning") && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(exists_below(scratch, "spinning")) << read_file(run.dir() / "eval.log");
    tree = descendants(d2k.pid());
    ASSERT_FALSE(tree.empty());
    kill(d2k.pid(), SIGKILL);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::vector<pid_t> left = tree;
  while (!left.empty() && std::chrono::steady_clock::now() < deadline) {
    std::erase_if(left, [](pid_t pid) { return !alive(pid); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(left.empty()) << left.size() << " of " << tree.size() << " processes outlived d2k";

  // The next run removes the killed run's scratch folder.
  bool leftover = false;
  for (const auto& entry : fs::directory_iterator(scratch)) leftover = leftover || entry.path().filename().string().rfind("d2k-", 0) == 0;
  EXPECT_TRUE(leftover) << "the killed run left no scratch folder: nothing to show";
  const RunResult next = run.d2k({"eval", task_dir("cpu_scale_add").string(), "--solution",
                                  (kFixtures / "solutions" / "cpu_scale_add" / "correct.py").string(),
                                  "--quick", "--no-store"});
  unsetenv("D2K_SCRATCH");
  EXPECT_EQ(next.status, 0) << next.err;
  for (const auto& entry : fs::directory_iterator(scratch)) {
    EXPECT_NE(entry.path().filename().string().rfind("d2k-", 0), 0u) << entry.path() << " stayed";
  }
}

TEST(Reliability, KillingD2kMidRunLeavesNoProcessAndNoScratch) { kill_mid_run({}); }

TEST(Reliability, KillingD2kMidRunLeavesNoProcessWithoutTheSandbox) { kill_mid_run({"--no-sandbox"}); }

// Defect 8: a broken task was blamed on the candidate. A get_inputs that raises, or a workload
// parameter it never reads, is the task's error, under its own verdict.
TEST(Reliability, ABrokenTaskIsATaskErrorNotTheCandidates) {
  D2kRun run;
  const fs::path raising = repository_copy(run.dir() / "raising", "cpu_scale_add");
  write(raising / "get_inputs.py", "def get_inputs(config):\n    raise ValueError('broken generator')\n");
  const fs::path correct = kFixtures / "solutions" / "cpu_scale_add" / "correct.py";
  const json raised = evaluate(run, raising, correct);
  ASSERT_FALSE(raised.at("workloads").empty()) << raised.dump(2);
  EXPECT_EQ(raised["workloads"][0]["verdict"], "task_error") << raised.dump(2);
  EXPECT_EQ(raised["workloads"][0]["reason_code"], "task_inputs");
  EXPECT_NE(first_message(raised).find("broken generator"), std::string::npos);

  const fs::path unknown = repository_copy(run.dir() / "unknown", "cpu_scale_add");
  std::ifstream in(unknown / "config.json");
  json config = json::parse(in);
  in.close();
  config["quick_workloads"][0]["shpae"] = {3};
  std::ofstream(unknown / "config.json") << config.dump(2);
  const json misspelled = evaluate(run, unknown, correct);
  ASSERT_FALSE(misspelled.at("workloads").empty()) << misspelled.dump(2);
  EXPECT_EQ(misspelled["workloads"][0]["verdict"], "task_error") << misspelled.dump(2);
  EXPECT_EQ(misspelled["workloads"][0]["reason_code"], "task_parameter");
  EXPECT_NE(first_message(misspelled).find("shpae"), std::string::npos);

  // Seen before anything runs: `d2k show` and `d2k tasks` name the parameter.
  const RunResult shown = run.d2k({"show", unknown.string()});
  EXPECT_NE(shown.out.find("task_error: workload \"quick_tiny\": get_inputs never reads shpae"), std::string::npos)
      << shown.out;
  const RunResult listed = run.d2k({"--tasks", unknown.parent_path().string(), "tasks"});
  EXPECT_NE(listed.out.find("task_error"), std::string::npos) << listed.out;
  EXPECT_EQ(listed.status, 1);
}

// Defect 9: usage errors ended with CLI11's own numbers (105, 108); the README documents 2.
TEST(Reliability, UsageErrorsExitWithTwo) {
  D2kRun run;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"eval"}, {"--no-such-flag"}, {"eval", "x", "--workload"}, {"no-such-command"}}) {
    const RunResult result = run.d2k(args);
    EXPECT_EQ(result.status, 2) << args.front() << ": " << result.err;
  }
  EXPECT_EQ(run.d2k({"--help"}).status, 0);
}

// Defect 9: the table showed "max err 0.00e+00" for outputs of the wrong dtype, shape or NaN.
TEST(Reliability, TheTableSaysWhatWasWrongInsteadOfAZeroError) {
  D2kRun run;
  for (const auto& [file, shown] : {std::pair{"wrong_dtype.py", "dtype"}, {"wrong_shape.py", "shape"},
                                    {"nan.py", "NaN/Inf"}}) {
    const RunResult result = run.d2k({"eval", task_dir("cpu_scale_add").string(), "--solution",
                                      (kFixtures / "solutions" / "cpu_scale_add" / file).string(),
                                      "--quick", "--no-store"});
    EXPECT_EQ(result.out.find("0.00e+00"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find(shown), std::string::npos) << result.out;
  }
}

// Defect 3 and a smaller one of 9 (already fixed in the MCP server; kept from regressing): a
// line nested 200,000 deep ended `d2k mcp` with SIGSEGV, and a JSON-RPC object with neither
// `method` nor `id` got no reply. Now both get the protocol's error and the server carries on.
TEST(Reliability, TheMcpServerAnswersHostileLinesAndCarriesOn) {
  D2kRun run;
  const auto prepared = run.d2k({"--tasks", (kFixtures / "tasks").string(), "agent", "prepare", "cpu_scale_add",
                                 "--config", "none", "--workspace", (run.dir() / "ws").string()});
  ASSERT_EQ(prepared.status, 0) << prepared.err;
  const fs::path input = run.dir() / "hostile.jsonl";
  write(input, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":" + std::string(200000, '[') +
                   std::string(200000, ']') + "}\n{\"jsonrpc\":\"2.0\"}\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n");
  const RunResult served = run_process(
      "/bin/sh", {"-c", "exec '" + kBinary.string() + "' --store '" + run.store().string() +
                            "' mcp --workspace '" + (run.dir() / "ws").string() + "' < '" + input.string() + "'"},
      run.dir());
  ASSERT_TRUE(served.exited) << "the server died: " << served.err;
  std::vector<json> replies;
  std::istringstream lines(served.out);
  for (std::string line; std::getline(lines, line);) replies.push_back(json::parse(line));
  const auto has = [&](auto&& predicate) { return std::any_of(replies.begin(), replies.end(), predicate); };
  EXPECT_TRUE(has([](const json& r) { return r.contains("error") && r["error"]["code"] == -32600; })) << served.out;
  EXPECT_TRUE(has([](const json& r) { return r.contains("id") && r["id"] == 7; })) << served.out;
}

}  // namespace
}  // namespace d2k::e2e
