#include "eval/worker_process.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "util/temp_dir.h"

namespace d2k::eval {
namespace {

namespace fs = std::filesystem;

class WorkerProcessTest : public ::testing::Test {
 protected:

  // A stand-in for `d2k worker`: a script that ignores its arguments and runs `body`.
  fs::path script(const std::string& body) {
    const fs::path file = dir_ / "worker.sh";
    std::ofstream(file) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(file, fs::perms::owner_all);
    return file;
  }

  util::TempDir temp_{"d2k-worker-process-"};
  fs::path dir_ = temp_.path();
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

// A launcher runs the worker's command line as its arguments: here a shell that ignores them,
// waits a little and exits with 7, the way a profiler finishes after its worker.
TEST_F(WorkerProcessTest, ALauncherRunsInFrontOfTheWorkerAndIsWaitedFor) {
  auto process = WorkerProcess::start("/bin/true", dir_ / "log", nullptr, {},
                                      {"/bin/sh", "-c", "sleep 0.5; echo \"$0 $1 $2\"; exit 7"});
  EXPECT_FALSE(process->wait_for(std::chrono::milliseconds(50)));
  EXPECT_TRUE(process->wait_for(std::chrono::seconds(20)));
  process->kill();  // reaped already: nothing to kill
  const ExitStatus status = process->wait();
  EXPECT_TRUE(status.exited);
  EXPECT_EQ(status.code, 7);
  EXPECT_EQ(process->log_tail(100), "/bin/true worker --channel-fd\n");
}

}  // namespace
}  // namespace d2k::eval
