// `d2k sweep` through the slurm executor on a real one-node Slurm (tools/slurm/start.sh, from
// Debian's slurmctld, slurmd and munge), started and stopped by the fixture: the cells complete,
// one cancelled with scancel is run again, a second run skips every cell, and the store equals
// what the local executor stores for the same plan (apart from timings).

#include <gtest/gtest.h>

#include "store/store.h"
#include "sweep_run.h"

namespace d2k::e2e {
namespace {

namespace fs = std::filesystem;

const fs::path kSlurmTools = fs::path(D2K_SOURCE_DIR) / "tools" / "slurm";

bool slurm_installed() {
  return std::system("command -v slurmctld > /dev/null && command -v slurmd > /dev/null && "
                     "command -v munged > /dev/null && command -v sbatch > /dev/null") == 0;
}

// What two executors must agree on for one evaluation: everything but timings and identities.
std::map<std::string, std::string> outcomes(const fs::path& path) {
  store::Store store = store::Store::open(path);
  store::Query all;
  all.limit = 0;
  std::map<std::string, std::string> out;
  for (const auto& summary : store.evaluations().list(all)) {
    const auto result = store.evaluations().load(summary.id);
    std::string verdicts;
    for (const auto& w : result->workloads) {
      verdicts += w.workload + "=" + record::to_string(w.verdict) + "/" + w.reason_code + " ";
    }
    out[result->task_id + " " + result->impl_kind + " " + result->impl_hash] =
        result->impl_path + " " + result->device + " " + (result->passed() ? "passed " : "failed ") +
        verdicts;
  }
  return out;
}

class SlurmSweepTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!slurm_installed()) return;
    cluster_ = new TempDir();
    // Ports of this process's own, so that parallel test runs on one host do not meet.
    const int port = 20000 + static_cast<int>(getpid() % 20000);
    const RunResult started = run_process("/bin/bash",
                                          {(kSlurmTools / "start.sh").string(),
                                           cluster_->path().string(), std::to_string(port)},
                                          cluster_->path());
    start_output_ = started.out + started.err;
    if (started.status == 0) setenv("SLURM_CONF", (cluster_->path() / "slurm.conf").c_str(), 1);
    started_ = started.status == 0;
  }
  static void TearDownTestSuite() {
    if (cluster_ == nullptr) return;
    run_process("/bin/bash", {(kSlurmTools / "stop.sh").string(), cluster_->path().string()},
                cluster_->path());
    delete cluster_;
    cluster_ = nullptr;
  }

  void SetUp() override {
    if (!slurm_installed()) {
      if (std::getenv("D2K_REQUIRE_SLURM") != nullptr) {
        FAIL() << "Slurm is not installed (tools/install_deps.sh), and $D2K_REQUIRE_SLURM is set";
      }
      GTEST_SKIP() << "Slurm is not installed (tools/install_deps.sh)";
    }
    ASSERT_TRUE(started_) << "tools/slurm/start.sh failed:\n" << start_output_;
  }

  std::vector<std::string> sweep(const std::string& command, const fs::path& plan,
                                 const fs::path& store) const {
    return {"--tasks", (kFixtures / "tasks").string(), "--store", store.string(),
            "sweep", command, plan.string()};
  }

  static inline TempDir* cluster_ = nullptr;
  static inline bool started_ = false;
  static inline std::string start_output_;
  D2kRun run_;
};

TEST_F(SlurmSweepTest, CellsCompleteACancelledCellIsRetriedAndARerunSkipsThem) {
  const fs::path plan = run_.dir() / "slurm.yaml";
  std::ofstream(plan) << sweep_plan("{kind: slurm, max_running: 2, poll_seconds: 0.2, retries: 1}");
  const fs::path log = run_.dir() / "slurm-sweep.log";
  std::string cancelled;
  int status = -1;
  {
    Started sweep_run(sweep("run", plan, run_.store()), log);
    // Cancel the first array task seen running.
    ASSERT_TRUE(wait_until(
        [&] {
          const RunResult queue = run_process(
              "/usr/bin/squeue", {"--noheader", "--array", "--states=RUNNING", "--format=%i"},
              run_.dir());
          std::istringstream lines(queue.out);
          return static_cast<bool>(std::getline(lines, cancelled)) && !cancelled.empty();
        },
        120))
        << read_file(log);
    ASSERT_EQ(run_process("/usr/bin/scancel", {cancelled}, run_.dir()).status, 0);
    status = sweep_run.wait();
  }
  const std::string output = read_file(log);
  ASSERT_EQ(status, 0) << output;
  EXPECT_TRUE(contains(output, "CANCELLED")) << output;
  // The cancelled cell went alone into a second array.
  EXPECT_TRUE(contains(output, "submitted job array")) << output;
  EXPECT_TRUE(contains(output, "(1 cells)")) << output;
  EXPECT_TRUE(contains(output, "4 done, 0 running, 0 failed, 0 left")) << output;
  EXPECT_EQ(evaluations_per_cell(run_.store()), kOneEvaluationPerCell);

  const RunResult again = run_process(kBinary, sweep("run", plan, run_.store()), run_.dir());
  ASSERT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_FALSE(contains(again.err, "submitted")) << again.err;
  EXPECT_EQ(evaluations_per_cell(run_.store()), kOneEvaluationPerCell);

  // The local executor on the same plan stores the same evaluations.
  const fs::path local_plan = run_.dir() / "local.yaml";
  std::ofstream(local_plan) << sweep_plan("{kind: local, cpu_workers: 2}");
  const fs::path local_store = run_.dir() / "local.sqlite";
  const RunResult local = run_process(kBinary, sweep("run", local_plan, local_store), run_.dir());
  ASSERT_EQ(local.status, 0) << local.out << local.err;
  EXPECT_EQ(outcomes(local_store), outcomes(run_.store()));
  EXPECT_EQ(outcomes(local_store).size(), 4u);
}

}  // namespace
}  // namespace d2k::e2e
