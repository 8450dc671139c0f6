#include "native/command.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace d2k::native {
namespace {

namespace fs = std::filesystem;

CommandResult sh(const std::string& script, double timeout_seconds = 30.0,
                 size_t output_limit = 1 << 20) {
  return run_command({"/bin/sh", "-c", script}, fs::temp_directory_path(), timeout_seconds,
                     output_limit);
}

TEST(RunCommandTest, KeepsStdoutAndStderrAndTheExitStatus) {
  const CommandResult result = sh("echo out; echo err >&2; exit 3");
  EXPECT_FALSE(result.timed_out);
  EXPECT_TRUE(result.exited);
  EXPECT_EQ(result.status, 3);
  EXPECT_FALSE(result.succeeded());
  EXPECT_EQ(result.output, "out\nerr\n");
  EXPECT_EQ(result.describe(30), "exited with status 3");
}

TEST(RunCommandTest, SucceedsOnExitZero) {
  const CommandResult result = sh("true");
  EXPECT_TRUE(result.succeeded());
  EXPECT_EQ(result.output, "");
}

TEST(RunCommandTest, RunsInTheGivenFolder) {
  const CommandResult result = run_command({"pwd"}, "/", 30.0, 1024);
  EXPECT_EQ(result.output, "/\n");
}

TEST(RunCommandTest, ReportsASignal) {
  const CommandResult result = sh("kill -SEGV $$");
  EXPECT_FALSE(result.exited);
  EXPECT_EQ(result.status, SIGSEGV);
  EXPECT_EQ(result.describe(30), "killed by signal 11 (Segmentation fault)");
}

TEST(RunCommandTest, KillsTheWholeGroupAtTheTimeLimit) {
  const fs::path marker =
      fs::temp_directory_path() / ("d2k_command_test_" + std::to_string(getpid()));
  fs::remove(marker);
  // The background child would write the marker after 2 s if it outlived the limit.
  const CommandResult result =
      sh("echo started; (sleep 2; touch '" + marker.string() + "') & sleep 30", 0.5);
  EXPECT_TRUE(result.timed_out);
  EXPECT_FALSE(result.succeeded());
  EXPECT_LT(result.seconds, 5.0);
  EXPECT_EQ(result.output, "started\n");
  EXPECT_EQ(result.describe(0.5), "killed after 0.5 s (time limit)");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_FALSE(fs::exists(marker)) << "a child of the command survived the kill";
  fs::remove(marker);
}

TEST(RunCommandTest, AClosedOutputDoesNotEscapeTheLimit) {
  const CommandResult result = sh("exec >&- 2>&-; sleep 30", 0.5);
  EXPECT_TRUE(result.timed_out);
  EXPECT_LT(result.seconds, 5.0);
}

TEST(RunCommandTest, BoundsTheOutputAndSaysHowMuchWasCut) {
  const CommandResult result = sh("head -c 100000 /dev/zero | tr '\\0' x", 30.0, 1000);
  EXPECT_TRUE(result.succeeded());
  EXPECT_EQ(result.output, std::string(1000, 'x') + "\n[... 99000 more bytes]");
}

TEST(RunCommandTest, CutsOnACharacterBoundary) {
  // "é" is two bytes; a limit of 4 falls inside the third one.
  const CommandResult result = sh("printf 'ééééé'", 30.0, 5);
  EXPECT_EQ(result.output, "éé\n[... 6 more bytes]");
}

TEST(RunCommandTest, AProgramThatDoesNotExistThrows) {
  EXPECT_THROW(run_command({"d2k-no-such-compiler"}, "/", 5.0, 1024), std::runtime_error);
}

TEST(ShellQuoteTest, QuotesOnlyWhatAShellWouldSplit) {
  EXPECT_EQ(shell_quote({"nvcc", "-O3", "-gencode=arch=compute_90a,code=sm_90a", "/a b/x.cu",
                         "it's", ""}),
            "nvcc -O3 -gencode=arch=compute_90a,code=sm_90a '/a b/x.cu' 'it'\\''s' ''");
}

}  // namespace
}  // namespace d2k::native
