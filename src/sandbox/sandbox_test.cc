// Each protection of the sandbox, shown by a command that succeeds without it and fails with it.
// The machine running the tests decides what the kernel allows: where a protection is reported
// unavailable, the test checks that report instead (and says so in its output).

#include "sandbox/sandbox.h"
#include "util/temp_dir.h"

#include <signal.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <grp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "sandbox/system_view.h"

namespace d2k::sandbox {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

RunResult run(const std::string& command, const fs::path& workspace, const Policy& policy = {}) {
  return run_sandboxed(command, workspace, policy, 20.0, 64 * 1024);
}

bool succeeded(const RunResult& result) { return result.exited && result.status == 0; }

// True when the kernel let the protection be applied; otherwise prints why not.
bool applied(bool protection, const Report& report) {
  if (!protection) {
    std::cout << "[ unavailable here ] " << report.summary() << "\n";
    EXPECT_FALSE(report.unavailable.empty()) << "a missing protection must be reported";
  }
  return protection;
}

class SandboxTest : public ::testing::Test {
 protected:
  util::TempDir outside;    // files the program must not see or change
  util::TempDir workspace;  // its own folder
};

TEST_F(SandboxTest, HiddenFilesAndFoldersReadAsEmpty) {
  write(outside.path() / "expert" / "solution.py", "the expert's code");
  write(outside.path() / "judge_criteria.md", "the criteria");
  const std::string command = "cat " + (outside.path() / "judge_criteria.md").string() + " " +
                              (outside.path() / "expert" / "solution.py").string() + "; echo entries: $(ls " +
                              (outside.path() / "expert").string() + " | wc -l)";

  const RunResult open = run(command, workspace.path());
  EXPECT_NE(open.output.find("the criteria"), std::string::npos) << "control: visible without a policy";

  Policy policy;
  policy.hidden = {outside.path() / "expert", outside.path() / "judge_criteria.md"};
  const RunResult hidden = run(command, workspace.path(), policy);
  if (!applied(hidden.report.filesystem, hidden.report)) return;
  EXPECT_EQ(hidden.output.find("the criteria"), std::string::npos) << hidden.output;
  EXPECT_EQ(hidden.output.find("expert's code"), std::string::npos) << hidden.output;
  EXPECT_NE(hidden.output.find("entries: 0"), std::string::npos) << hidden.output;
}

TEST_F(SandboxTest, HiddenMasksCannotBeUnmounted) {
  write(outside.path() / "expert" / "solution.py", "the expert's code");
  Policy policy;
  policy.hidden = {outside.path() / "expert"};
  const RunResult result =
      run("umount " + (outside.path() / "expert").string() + " 2>/dev/null; cat " +
              (outside.path() / "expert" / "solution.py").string(),
          workspace.path(), policy);
  if (!applied(result.report.filesystem, result.report)) return;
  EXPECT_EQ(result.output.find("expert's code"), std::string::npos) << result.output;
}

TEST_F(SandboxTest, WritesGoOnlyToTheWritableFolders) {
  const fs::path elsewhere = outside.path() / "cache.bin";
  const std::string command = "echo cached > " + elsewhere.string() + "; echo mine > own.txt";
  const RunResult result = run(command, workspace.path());
  if (!applied(result.report.filesystem, result.report)) return;
  EXPECT_FALSE(fs::exists(elsewhere)) << "wrote outside its folder";
  EXPECT_TRUE(fs::exists(workspace.path() / "own.txt")) << result.output;

  Policy open;
  open.writable = {outside.path()};
  run(command, workspace.path(), open);
  EXPECT_TRUE(fs::exists(elsewhere)) << "control: writable when listed";
}

TEST_F(SandboxTest, AHiddenScratchRootShowsOnlyItsOwnFolder) {
  const fs::path mine = outside.path() / "d2k-mine";
  write(outside.path() / "d2k-other" / "out.bin", "another candidate's output");
  fs::create_directories(mine);
  Policy policy;
  policy.hidden_except_writable = {outside.path()};
  policy.writable = {mine};
  const RunResult result =
      run("ls " + outside.path().string() + "; echo x > " + (mine / "t").string(),
          workspace.path(), policy);
  if (!applied(result.report.filesystem, result.report)) return;
  EXPECT_EQ(result.output.find("d2k-other"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("d2k-mine"), std::string::npos) << result.output;
  EXPECT_TRUE(fs::exists(mine / "t")) << result.output;
}

TEST_F(SandboxTest, NoNetwork) {
  const int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(server, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(server, 4), 0);
  socklen_t length = sizeof address;
  getsockname(server, reinterpret_cast<sockaddr*>(&address), &length);
  const std::string command =
      std::string(D2K_PYTHON_EXECUTABLE) +
      " -c \"import socket; socket.create_connection(('127.0.0.1', " +
      std::to_string(ntohs(address.sin_port)) + "), 2); print('connected')\"";

  Policy connected;
  connected.isolate_network = false;
  EXPECT_NE(run(command, workspace.path(), connected).output.find("connected"), std::string::npos)
      << "control: the host's loopback is reachable without isolation";
  const RunResult isolated = run(command, workspace.path());
  close(server);
  if (!applied(isolated.report.network, isolated.report)) return;
  EXPECT_FALSE(succeeded(isolated));
  EXPECT_EQ(isolated.output.find("connected\n"), std::string::npos) << isolated.output;
}

TEST_F(SandboxTest, OtherProcessesAreInvisible) {
  const std::string command = "test -e /proc/" + std::to_string(getpid()) + " && echo visible";
  const RunResult result = run(command, workspace.path());
  if (!applied(result.report.process_view, result.report)) return;
  EXPECT_EQ(result.output.find("visible"), std::string::npos) << result.output;
  EXPECT_NE(run("test -e /proc/1 && echo pid1", workspace.path()).output.find("pid1"),
            std::string::npos)
      << "its own processes are visible";
}

TEST_F(SandboxTest, CpuTimeIsLimited) {
  Policy policy;
  policy.limits.cpu_seconds = 1;
  const RunResult result = run("while :; do :; done", workspace.path(), policy);
  ASSERT_TRUE(result.report.limits || policy.limits.processes) << result.report.summary();
  EXPECT_FALSE(result.timed_out) << "not stopped by RLIMIT_CPU";
  EXPECT_FALSE(result.exited);
  EXPECT_TRUE(result.status == SIGXCPU || result.status == SIGKILL) << result.status;
}

TEST_F(SandboxTest, FileSizeIsLimited) {
  Policy policy;
  policy.limits.file_bytes = 4096;
  const RunResult result =
      run("head -c 100000 /dev/zero > big.bin", workspace.path(), policy);
  EXPECT_TRUE(result.report.limits) << result.report.summary();
  EXPECT_EQ(fs::file_size(workspace.path() / "big.bin"), 4096u);
  EXPECT_EQ(run("head -c 100000 /dev/zero > big.bin", workspace.path()).exited, true);
  EXPECT_EQ(fs::file_size(workspace.path() / "big.bin"), 100000u) << "control: no limit";
}

// RLIMIT_NPROC binds every user but the host's root; as root, the report must say so.
TEST_F(SandboxTest, ProcessCountIsLimitedOrReportedUnavailable) {
  Policy policy;
  policy.limits.processes = 4;
  const std::string command = "for i in 1 2 3 4 5 6 7 8; do sleep 1 & done; wait; echo done";
  if (geteuid() != 0) {
    const RunResult result = run(command, workspace.path(), policy);
    EXPECT_TRUE(result.report.limits) << result.report.summary();
    EXPECT_NE(result.output.find("fork"), std::string::npos) << result.output;
    return;
  }
  const RunResult as_root = run(command, workspace.path(), policy);
  EXPECT_FALSE(as_root.report.limits);
  EXPECT_NE(as_root.report.summary().find("RLIMIT_NPROC is not enforced"), std::string::npos);

  // Shown for an ordinary user: a child that drops to nobody runs the same command.
  fs::permissions(workspace.path(), fs::perms::all);
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 ||
        setresuid(65534, 65534, 65534) != 0) {
      _exit(3);
    }
    const RunResult result = run(command, workspace.path(), policy);
    const std::string text = (result.report.limits ? "limited\n" : "unlimited\n") + result.output;
    [[maybe_unused]] ssize_t n = ::write(pipe_fds[1], text.data(), text.size());
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "could not become nobody";
  EXPECT_EQ(text.rfind("limited\n", 0), 0u) << text;
  EXPECT_NE(text.find("fork"), std::string::npos) << text;
}

Policy minimal() {
  Policy policy;
  policy.minimal_root = minimal_root_from(host_facts());
  return policy;
}

// The host's secrets, other folders and other stores do not exist in a minimal root; the shell,
// coreutils and the interpreter do, and only the workspace is writable.
TEST_F(SandboxTest, AMinimalRootHoldsOnlyWhatThePolicyLists) {
  write(outside.path() / "secret.txt", "outside the policy");
  write(outside.path() / "repo" / ".git" / "HEAD", "ref: refs/heads/main");
  const std::string command =
      "cat " + (outside.path() / "secret.txt").string() + " " + (outside.path() / "repo/.git/HEAD").string() +
      "; cat /etc/shadow; ls /root /home; echo mine > own.txt; echo tmp > $TMPDIR/t && echo tmp-ok; " +
      D2K_PYTHON_EXECUTABLE + " -c 'import json; print(\"python-ok\")'";
  const RunResult open = run(command, workspace.path());
  ASSERT_NE(open.output.find("outside the policy"), std::string::npos) << "control: " << open.output;

  const RunResult result = run(command, workspace.path(), minimal());
  if (!applied(result.report.minimal_root, result.report)) return;
  EXPECT_EQ(result.output.find("outside the policy"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("refs/heads"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("root:"), std::string::npos) << "the host's /etc/shadow: " << result.output;
  EXPECT_NE(result.output.find("python-ok"), std::string::npos) << result.output << result.report.summary();
  EXPECT_NE(result.output.find("tmp-ok"), std::string::npos) << result.output;
  EXPECT_TRUE(fs::exists(workspace.path() / "own.txt")) << result.output;
}

// Triton builds its launcher module with the host's C compiler on first use: the compiler, its
// own programs and the system's headers are in a minimal root.
TEST_F(SandboxTest, AMinimalRootCanBuildAPythonExtensionWithTheHostsCompiler) {
  if (std::system("command -v gcc > /dev/null") != 0) GTEST_SKIP() << "no gcc on this host";
  const std::string command =
      std::string(
          "printf '#include <Python.h>\\nint ok(void) { return Py_IsInitialized(); }\\n' > m.c "
          "&& ") +
      "gcc m.c -O1 -shared -fPIC -o m.so -I\"$(" + D2K_PYTHON_EXECUTABLE +
      " -c 'import sysconfig; print(sysconfig.get_paths()[\"include\"])')\" && echo built-ok";
  const RunResult open = run(command, workspace.path());
  if (open.output.find("built-ok") == std::string::npos)
    GTEST_SKIP() << "no Python headers: " << open.output;

  const RunResult result = run(command, workspace.path(), minimal());
  if (!applied(result.report.minimal_root, result.report)) return;
  EXPECT_NE(result.output.find("built-ok"), std::string::npos)
      << result.output << result.report.summary();
}

TEST_F(SandboxTest, AMinimalRootRunsAsAnUnprivilegedUserWithoutCapabilities) {
  const RunResult result =
      run("id -u; grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status", workspace.path(), minimal());
  if (!applied(result.report.minimal_root, result.report)) return;
  ASSERT_TRUE(result.report.unprivileged) << result.report.summary();
  EXPECT_TRUE(succeeded(result)) << result.exited << " " << result.status;
  EXPECT_EQ(result.output.find("\n0\n"), std::string::npos);
  if (geteuid() == 0) EXPECT_EQ(result.output.rfind("0\n", 0), std::string::npos) << result.output;
  for (const char* set : {"CapEff:\t0000000000000000", "CapPrm:\t0000000000000000",
                          "CapBnd:\t0000000000000000"}) {
    EXPECT_NE(result.output.find(set), std::string::npos) << result.output << result.report.summary();
  }
}

// A minimal root that cannot be built is not skipped in silence: the host's tree is masked
// instead, and the report says so.
TEST_F(SandboxTest, AMinimalRootThatCannotBeBuiltFallsBackToMasks) {
  write(outside.path() / "expert" / "solution.py", "the expert's code");
  Policy policy = minimal();
  policy.minimal_root->tmp = outside.path() / "missing";
  policy.hidden = {outside.path() / "expert"};
  const RunResult result =
      run("cat " + (outside.path() / "expert" / "solution.py").string() + "; echo ran", workspace.path(), policy);
  if (!applied(result.report.filesystem, result.report)) return;
  EXPECT_FALSE(result.report.minimal_root);
  EXPECT_NE(result.report.summary().find("minimal root: not built"), std::string::npos) << result.report.summary();
  EXPECT_NE(result.output.find("ran"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("expert's code"), std::string::npos) << result.output;
}

// Memory beyond the limit is refused (a cgroup, or RLIMIT_DATA), and the report says which.
TEST_F(SandboxTest, MemoryIsLimited) {
  const std::string command = std::string(D2K_PYTHON_EXECUTABLE) +
                              " -c 'x = bytearray(1 << 30); x[::4096] = b\"x\" * len(x[::4096]); print(\"allocated\")'";
  EXPECT_NE(run(command, workspace.path()).output.find("allocated"), std::string::npos) << "control";
  Policy policy;
  policy.limits.memory_bytes = rlim_t{256} << 20;
  const RunResult result = run(command, workspace.path(), policy);
  EXPECT_EQ(result.output.find("allocated"), std::string::npos) << result.output;
  const std::string summary = result.report.summary();
  EXPECT_TRUE(summary.find("RLIMIT_DATA 268435456") != std::string::npos ||
              summary.find("memory.max 268435456") != std::string::npos)
      << summary;
}

// Without namespaces, what the program starts in a session of its own still ends with it.
TEST_F(SandboxTest, NothingOutlivesAnUnsandboxedProgram) {
  const fs::path marker = workspace.path() / "escaped.pid";
  const Spawned spawned = spawn_unsandboxed(
      [] {},
      [&] {
        const std::string command = "setsid sh -c 'echo $$ > " + marker.string() + "; exec sleep 300' & sleep 0.5";
        execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      });
  int status = 0;
  waitpid(spawned.pid, &status, 0);
  ASSERT_TRUE(fs::exists(marker));
  std::ifstream in(marker);
  pid_t escaped = 0;
  in >> escaped;
  ASSERT_GT(escaped, 0);
  EXPECT_NE(kill(escaped, 0), 0) << "process " << escaped << " outlived the program";
}

// Every process below `root`, from /proc.
std::vector<pid_t> tree_below(pid_t root) {
  std::vector<std::pair<pid_t, pid_t>> parents;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const pid_t pid = std::atoi(entry.path().filename().c_str());
    if (pid <= 0) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto end = stat.rfind(')');
    char state = 0;
    pid_t parent = 0;
    if (end != std::string::npos && std::sscanf(stat.c_str() + end + 1, " %c %d", &state, &parent) == 2) {
      parents.emplace_back(pid, parent);
    }
  }
  std::vector<pid_t> found{root};
  for (size_t i = 0; i < found.size(); ++i) {
    for (const auto& [pid, parent] : parents) {
      if (parent == found[i]) found.push_back(pid);
    }
  }
  found.erase(found.begin());
  return found;
}

bool running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto end = stat.rfind(')');
  return end != std::string::npos && stat.size() > end + 2 && stat[end + 2] != 'Z';
}

// A caller killed with SIGKILL takes the whole sandboxed tree along (every layer dies with its
// parent), with a minimal root and without a sandbox; nothing runs on until its CPU limit.
void caller_killed(bool sandboxed, const fs::path& workspace) {
  const fs::path started = workspace / "started";
  const pid_t caller = fork();
  if (caller == 0) {
    const std::string command = "touch " + started.string() + "; setsid sleep 300 & sleep 300";
    if (sandboxed) {
      run_sandboxed(command, workspace, minimal(), 600, 1024);
    } else {
      const Spawned spawned = spawn_unsandboxed(
          [] {}, [&] { execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr)); });
      waitpid(spawned.pid, nullptr, 0);
    }
    _exit(0);
  }
  for (int i = 0; i < 200 && !fs::exists(started); ++i) usleep(50'000);
  ASSERT_TRUE(fs::exists(started));
  usleep(200'000);
  const std::vector<pid_t> tree = tree_below(caller);
  ASSERT_GE(tree.size(), 2u);
  kill(caller, SIGKILL);
  waitpid(caller, nullptr, 0);
  std::vector<pid_t> left = tree;
  for (int i = 0; i < 100 && !left.empty(); ++i) {
    std::erase_if(left, [](pid_t pid) { return !running(pid); });
    usleep(50'000);
  }
  EXPECT_TRUE(left.empty()) << left.size() << " of " << tree.size() << " processes outlived their caller";
}

TEST_F(SandboxTest, AKilledCallerTakesTheSandboxedTreeAlong) { caller_killed(true, workspace.path()); }

TEST_F(SandboxTest, AKilledCallerTakesAnUnsandboxedTreeAlong) { caller_killed(false, workspace.path()); }

}  // namespace
}  // namespace d2k::sandbox
