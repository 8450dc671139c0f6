// End-to-end: `d2k eval` and a store that cannot take its record. A read-only store stops the
// command before anything runs; a store that refuses the record at the end loses nothing.

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "d2k_run.h"
#include "store/store.h"

namespace d2k::e2e {
namespace {

namespace fs = std::filesystem;

TEST(StoreCliTest, AReadOnlyStoreStopsAnEvaluationBeforeItRuns) {
  D2kRun run;
  store::Store::open(run.store());
  fs::permissions(run.dir(), fs::perms::all);
  fs::permissions(run.store(), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read,
                  fs::perm_options::replace);
  std::vector<std::string> args{"--store", run.store().string(), "eval",
                                task_dir("cpu_scale_add").string(), "--impl", "baseline"};
  // Root writes read-only files; the permissions apply to an unprivileged user.
  RunResult result;
  if (geteuid() == 0) {
    args.insert(args.begin(), {"--reuid=65534", "--regid=65534", "--clear-groups", kBinary.string()});
    result = run_process("/usr/bin/setpriv", args, run.dir());
  } else {
    result = run_process(kBinary, args, run.dir());
  }
  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.status, 2) << result.err;
  EXPECT_TRUE(contains(result.err, "is read-only")) << result.err;
  EXPECT_FALSE(contains(result.err, "[1/")) << "a workload ran:\n" << result.err;
}

TEST(StoreCliTest, ARecordTheStoreRefusesIsKeptBesideIt) {
  D2kRun run;
  store::Store::open(run.store());
  // Writable when the command starts, refusing when the record comes (as a full disk would).
  store::Database(run.store())
      .exec("CREATE TRIGGER refuse BEFORE INSERT ON evaluations "
            "BEGIN SELECT RAISE(FAIL, 'the disk is full'); END");
  const RunResult result =
      run.d2k({"eval", task_dir("cpu_scale_add").string(), "--impl", "baseline"});
  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(contains(result.err, "the disk is full")) << result.err;
  std::vector<fs::path> kept;
  for (const auto& entry : fs::directory_iterator(run.dir())) {
    if (entry.path().filename().string().starts_with("store.sqlite.unsaved-evaluation-")) {
      kept.push_back(entry.path());
    }
  }
  ASSERT_EQ(kept.size(), 1u) << result.err;
  EXPECT_TRUE(contains(result.err, "its record is in " + kept[0].string())) << result.err;
  const auto record = nlohmann::json::parse(read_file(kept[0]));
  EXPECT_EQ(record.at("task"), "cpu_scale_add");
  EXPECT_EQ(record.at("impl_kind"), "baseline");
  EXPECT_EQ(record.at("workloads").size(), workload_labels("cpu_scale_add").size());
}

}  // namespace
}  // namespace d2k::e2e
