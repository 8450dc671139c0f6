#include "eval/worker_process.h"

#include <gtest/gtest.h>

#include "util/temp_dir.h"

namespace d2k::eval {
namespace {

// A launcher runs the worker's command line as its arguments: here a shell that ignores them,
// waits a little and exits with 7, the way a profiler finishes after its worker.
TEST(WorkerProcessTest, ALauncherRunsInFrontOfTheWorkerAndIsWaitedFor) {
  util::TempDir dir;
  auto process = WorkerProcess::start("/bin/true", dir.path() / "log", nullptr, {},
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
