#include "eval/worker_process.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

namespace d2k::eval {
namespace {

namespace fs = std::filesystem;

class WorkerProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "d2k-worker-process-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A stand-in for `d2k worker`: a script that ignores its arguments and runs `body`.
  fs::path script(const std::string& body) {
    const fs::path file = dir_ / "worker.sh";
    std::ofstream(file) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(file, fs::perms::owner_all);
    return file;
  }

  fs::path dir_;
};

// A candidate that prints without end fills no disk: the log keeps its first kLogLimit bytes and
// says where it stopped.
TEST_F(WorkerProcessTest, TheLogKeepsOnlyItsFirstBytes) {
  const auto worker = WorkerProcess::start(script("yes x | head -c 5000000"), dir_ / "log");
  const ExitStatus status = worker->wait();
  ASSERT_TRUE(status.exited) << status.describe();
  const auto size = fs::file_size(dir_ / "log");
  EXPECT_GE(size, WorkerProcess::kLogLimit);
  EXPECT_LT(size, WorkerProcess::kLogLimit + 200);
  EXPECT_NE(worker->log_tail(200).find("the log stops here"), std::string::npos) << worker->log_tail(200);
}

TEST_F(WorkerProcessTest, AShortLogIsKeptWhole) {
  const auto worker = WorkerProcess::start(script("echo first; echo second >&2"), dir_ / "log");
  worker->wait();
  EXPECT_EQ(worker->log_tail(100), "first\nsecond\n");
}

}  // namespace
}  // namespace d2k::eval
