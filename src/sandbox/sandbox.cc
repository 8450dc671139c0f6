#include "sandbox/sandbox.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <grp.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "sandbox/cgroup.h"
#include "sandbox/minimal_root.h"

namespace d2k::sandbox {
namespace {

namespace fs = std::filesystem;

// How the child got its namespaces: none at all, as an unprivileged user through a user
// namespace, or as the host's root directly.
enum class Mode { none, user_namespace, host_root };

std::string failure(const std::string& what) { return what + ": " + std::strerror(errno); }

bool write_file(const char* path, const std::string& text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return written;
}

Mode enter_namespaces(const Policy& policy, uid_t uid, gid_t gid, Report& report) {
  const int flags = CLONE_NEWNS | CLONE_NEWPID | (policy.isolate_network ? CLONE_NEWNET : 0);
  std::string as_root;
  if (uid == 0) {
    if (unshare(flags) == 0) return Mode::host_root;
    as_root = failure("unshare as root") + "; ";
  }
  if (unshare(CLONE_NEWUSER) != 0) {
    report.unavailable.push_back("namespaces: " + as_root + failure("unshare(CLONE_NEWUSER)"));
    return Mode::none;
  }
  // Root inside the namespace is this user outside it.
  if (!write_file("/proc/self/setgroups", "deny") ||
      !write_file("/proc/self/uid_map", fmt::format("0 {} 1", uid)) ||
      !write_file("/proc/self/gid_map", fmt::format("0 {} 1", gid))) {
    report.unavailable.push_back("namespaces: " + as_root + failure("writing the id maps"));
    return Mode::none;
  }
  if (unshare(flags) != 0) {
    // Ubuntu's AppArmor lets an unprivileged user namespace be created but without capabilities.
    report.unavailable.push_back("namespaces: " + as_root +
                                 failure("unshare(mount, PID, network) in a user namespace"));
    return Mode::none;
  }
  return Mode::user_namespace;
}

bool is_under(const fs::path& path, const fs::path& folder) {
  const fs::path relative = path.lexically_relative(folder);
  return !relative.empty() && *relative.begin() != "..";
}

bool mask_filesystem(const Policy& policy, Report& report) {
  const auto fail = [&](const std::string& what) {
    report.unavailable.push_back("filesystem: " + failure(what));
    return false;
  };
  // Opened before anything is covered, so that paths inside a masked folder can be put back.
  std::vector<fs::path> kept = policy.writable;
  kept.insert(kept.end(), policy.readable.begin(), policy.readable.end());
  std::vector<int> fds;
  for (const auto& path : kept) {
    const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return fail("opening " + path.string());
    fds.push_back(fd);
  }
  for (const auto& folder : policy.hidden_except_writable) {
    if (!fs::is_directory(folder)) continue;
    if (mount("tmpfs", folder.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755") != 0) {
      return fail("hiding " + folder.string());
    }
    // Mount points for what stays visible: a folder, or an empty file for a file.
    for (size_t i = 0; i < kept.size(); ++i) {
      if (!is_under(kept[i], folder)) continue;
      struct stat info {};
      fstat(fds[i], &info);
      std::error_code error;
      if (S_ISDIR(info.st_mode)) {
        fs::create_directories(kept[i], error);
      } else {
        fs::create_directories(kept[i].parent_path(), error);
        close(open(kept[i].c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
      }
    }
  }
  for (size_t i = 0; i < kept.size(); ++i) {
    const std::string source = "/proc/self/fd/" + std::to_string(fds[i]);
    const int status = mount(source.c_str(), kept[i].c_str(), nullptr, MS_BIND | MS_REC, nullptr);
    close(fds[i]);
    if (status != 0) return fail("binding " + kept[i].string());
  }
  // The masks go on last, over what was bound back too: a folder kept visible (the task's) still
  // hides the files inside it that the policy hides (its reference, its expert).
  for (const auto& path : policy.hidden) {
    struct stat info {};
    if (lstat(path.c_str(), &info) != 0) continue;  // nothing there to hide
    const int status =
        S_ISDIR(info.st_mode)
            ? mount("tmpfs", path.c_str(), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                    "size=4k,mode=0555")
            : mount("/dev/null", path.c_str(), nullptr, MS_BIND, nullptr);
    if (status != 0) return fail("hiding " + path.string());
  }
  mount_attr read_only{};
  read_only.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID;
  if (mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &read_only, sizeof read_only) != 0) {
    return fail("making every mount read-only");
  }
  mount_attr read_write{};
  read_write.attr_clr = MOUNT_ATTR_RDONLY;
  for (const auto& folder : policy.writable) {
    if (mount_setattr(AT_FDCWD, folder.c_str(), AT_RECURSIVE, &read_write, sizeof read_write) != 0) {
      return fail("making " + folder.string() + " writable");
    }
  }
  return true;
}

// Without capabilities, the program cannot unmount the masks, remount anything writable, or
// read other processes' memory; SECBIT_NOROOT keeps exec from giving them back to uid 0. With
// `become`, the ids change to it between dropping the bounding set and clearing the rest.
bool drop_capabilities(Report& report, std::optional<uid_t> become) {
  for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; ++cap) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      report.unavailable.push_back(failure("filesystem: dropping capability " + std::to_string(cap)));
      return false;
    }
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                   SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED,
            0, 0, 0) != 0) {
    report.unavailable.push_back(failure("filesystem: setting the secure bits"));
    return false;
  }
  if (become) {
    if (setgroups(0, nullptr) != 0 || setresgid(*become, *become, *become) != 0 ||
        setresuid(*become, *become, *become) != 0) {
      report.unavailable.push_back(failure("unprivileged: changing to uid " + std::to_string(*become)));
      return false;
    }
    report.unprivileged = true;
  }
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capset, &header, data) != 0) {
    report.unavailable.push_back(failure("filesystem: clearing the capability sets"));
    return false;
  }
  return true;
}

bool set_limit(int resource, const std::optional<rlim_t>& value, const char* name, Report& report) {
  if (!value) return true;
  const rlimit limit{*value, *value};
  if (setrlimit(resource, &limit) == 0) {
    report.limits_in_force.push_back(fmt::format("{} {}", name, *value));
    return true;
  }
  report.unavailable.push_back(failure(std::string("limits: ") + name));
  return false;
}

// The id the kernel shows for unmapped users ("nobody"): owns nothing on the host.
uid_t overflow_uid() {
  std::ifstream in("/proc/sys/kernel/overflowuid");
  uid_t uid = 65534;
  in >> uid;
  return uid;
}

// Whether a process without privileges could read `path` itself (in a minimal root, the
// folders above it are the tree's own, open to all).
bool others_can_read(const fs::path& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return false;
  const mode_t need = S_ISDIR(info.st_mode) ? (S_IROTH | S_IXOTH) : S_IROTH;
  return (info.st_mode & need) == need;
}

// Hands the writable folders, with what they hold, to `uid`.
void hand_over(const Policy& policy, uid_t uid) {
  std::vector<fs::path> folders = policy.writable;
  if (policy.minimal_root && !policy.minimal_root->tmp.empty()) folders.push_back(policy.minimal_root->tmp);
  for (const auto& folder : folders) {
    std::error_code error;
    lchown(folder.c_str(), uid, uid);
    for (auto it = fs::recursive_directory_iterator(folder, error); !error && it != fs::end(it);
         it.increment(error)) {
      lchown(it->path().c_str(), uid, uid);
    }
  }
}

// As the host's root in a minimal root, the program takes the overflow id, once it can still
// read what it is given; elsewhere it stays who it is, and the report says why.
std::optional<uid_t> unprivileged_id(const Policy& policy, Mode mode, uid_t uid, Report& report) {
  if (uid != 0) {
    report.unprivileged = true;  // the invoking user's own id, with no capability on the host
    return std::nullopt;
  }
  if (mode != Mode::host_root || !report.minimal_root) {
    report.unavailable.push_back("unprivileged: runs as the host's root (without capabilities), "
                                 "since only a minimal root hides what root may read");
    return std::nullopt;
  }
  for (const auto& path : policy.readable) {
    if (!others_can_read(path)) {
      report.unavailable.push_back("unprivileged: " + path.string() +
                                   " is not readable by other users, so the program keeps uid 0 "
                                   "(without capabilities)");
      return std::nullopt;
    }
  }
  const uid_t nobody = overflow_uid();
  hand_over(policy, nobody);
  return nobody;
}

// The parent-death signal, then a check that the parent did not end before it was set.
void die_with(int signal, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0);
  if (getppid() != parent) _exit(127);
}

[[noreturn]] void become_program(const Policy& policy, Mode mode, uid_t uid, Report& report,
                                 int report_fd, const std::function<void()>& exec, pid_t parent,
                                 bool in_cgroup) {
  bool limits = set_limit(RLIMIT_CPU, policy.limits.cpu_seconds, "RLIMIT_CPU", report);
  limits = set_limit(RLIMIT_FSIZE, policy.limits.file_bytes, "RLIMIT_FSIZE", report) && limits;
  limits = set_limit(RLIMIT_NPROC, policy.limits.processes, "RLIMIT_NPROC", report) && limits;
  // CUDA reserves address space by the terabyte, so RLIMIT_AS would stop any GPU program;
  // RLIMIT_DATA counts only the writable private memory a program actually asks for.
  if (!in_cgroup) limits = set_limit(RLIMIT_DATA, policy.limits.memory_bytes, "RLIMIT_DATA", report) && limits;
  const std::optional<uid_t> become = unprivileged_id(policy, mode, uid, report);
  if (policy.limits.processes && uid == 0 && !become) {
    // The kernel exempts the host's root from RLIMIT_NPROC, in any namespace.
    report.unavailable.push_back(
        "limits: RLIMIT_NPROC is not enforced, since the program runs as the host's root");
    limits = false;
  }
  report.limits = limits;
  if (mode != Mode::none && !drop_capabilities(report, become)) report.filesystem = false;
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  // After the ids changed: a change of credentials clears the parent-death signal.
  die_with(SIGKILL, parent);
  const std::string line = nlohmann::json(report).dump() + "\n";
  [[maybe_unused]] const ssize_t written = write(report_fd, line.data(), line.size());
  close(report_fd);
  exec();
  _exit(127);
}

// Ends this process the way `raw` (a wait status) says the program ended.
[[noreturn]] void end_like(int raw) {
  if (WIFSIGNALED(raw)) {
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(WTERMSIG(raw), SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, WTERMSIG(raw));
    sigprocmask(SIG_UNBLOCK, &only, nullptr);
    raise(WTERMSIG(raw));
    _exit(128 + WTERMSIG(raw));
  }
  _exit(WIFEXITED(raw) ? WEXITSTATUS(raw) : 127);
}

// Every process below this one, from the parents /proc names.
std::vector<pid_t> descendants() {
  std::multimap<pid_t, pid_t> children;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return {};
  while (const dirent* entry = readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    std::ifstream in(std::string("/proc/") + entry->d_name + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto name_end = stat.rfind(')');  // the name may hold spaces and parentheses
    if (name_end == std::string::npos) continue;
    char state = 0;
    pid_t parent = 0;
    if (std::sscanf(stat.c_str() + name_end + 1, " %c %d", &state, &parent) == 2) {
      children.emplace(parent, pid);
    }
  }
  closedir(proc);
  std::vector<pid_t> found{getpid()};
  for (size_t i = 0; i < found.size(); ++i) {
    const auto [first, last] = children.equal_range(found[i]);
    for (auto it = first; it != last; ++it) found.push_back(it->second);
  }
  found.erase(found.begin());
  return found;
}

// As a child subreaper, this process inherits every orphan below it: kills them all, and those
// they start meanwhile, until none is left.
void end_descendants() {
  while (true) {
    const std::vector<pid_t> left = descendants();
    for (const pid_t pid : left) kill(pid, SIGKILL);
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    if (left.empty() && waitpid(-1, nullptr, WNOHANG) < 0 && errno == ECHILD) return;
    usleep(10'000);
  }
}

volatile sig_atomic_t parent_ended = 0;

// Without namespaces: this process stays between the parent and the program as a subreaper, so
// that whatever the program starts (even in a session of its own) ends with it, or with the
// parent when the parent dies first.
[[noreturn]] void watch_program(const Policy& policy, uid_t uid, Report& report, int report_fd,
                                const std::function<void()>& exec, pid_t parent, bool in_cgroup) {
  struct sigaction on_hangup {};
  on_hangup.sa_handler = [](int) { parent_ended = 1; };
  sigaction(SIGHUP, &on_hangup, nullptr);
  die_with(SIGHUP, parent);
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  const pid_t watcher = getpid();
  const pid_t program = fork();
  if (program == 0) {
    signal(SIGHUP, SIG_DFL);
    if (report.enabled) become_program(policy, Mode::none, uid, report, report_fd, exec, watcher, in_cgroup);
    close(report_fd);
    die_with(SIGKILL, watcher);
    exec();
    _exit(127);
  }
  close(report_fd);
  int raw = 127 << 8;
  while (program > 0 && !parent_ended) {
    if (waitpid(program, &raw, 0) == program) break;
    if (errno != EINTR) break;
  }
  end_descendants();
  if (parent_ended) _exit(127);
  end_like(raw);
}

[[noreturn]] void run_child(const Policy& policy, int report_fd, const std::function<void()>& setup,
                            const std::function<void()>& exec, pid_t parent, const Cgroup* cgroup) {
  setup();
  const uid_t uid = geteuid();
  Report report;
  report.enabled = true;
  const bool in_cgroup = cgroup != nullptr && [&] {
    std::ofstream procs(cgroup->procs());
    procs << getpid();
    procs.flush();
    return static_cast<bool>(procs);
  }();
  if (in_cgroup) report.limits_in_force.push_back(fmt::format("memory.max {}", cgroup->memory_bytes()));
  if (cgroup != nullptr && !in_cgroup) report.unavailable.push_back("memory: entering the cgroup failed");
  const Mode mode = enter_namespaces(policy, uid, getegid(), report);
  if (mode == Mode::none) watch_program(policy, uid, report, report_fd, exec, parent, in_cgroup);
  // With namespaces, the program's whole tree lives in a PID namespace, which ends with its init.
  die_with(SIGKILL, parent);
  report.network = policy.isolate_network;
  const bool mounts_private = mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
  if (!mounts_private) report.unavailable.push_back(failure("filesystem: making the mounts private"));

  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC) != 0) _exit(127);
  const pid_t supervisor = getpid();
  const pid_t init = fork();
  if (init == 0) {
    // pid 1 of the new PID namespace: its parent is outside it, so whether the parent is still
    // there shows on the status pipe, which breaks when the parent ends.
    close(status_pipe[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    pollfd pipe_state{status_pipe[1], POLLOUT, 0};
    if (poll(&pipe_state, 1, 0) < 0 || (pipe_state.revents & POLLERR) != 0) _exit(127);
    // The filesystem is set up here, in the PID namespace, so its /proc can be mounted into it.
    const fs::path staging = "/tmp";
    if (mounts_private && policy.minimal_root) {
      report.minimal_root = build_root(policy, staging, report) && enter_root(staging, report);
      if (!report.minimal_root) {
        report.unavailable.push_back("minimal root: not built; the host's tree is shown, masked");
      }
    }
    if (report.minimal_root) {
      report.filesystem = true;
    } else {
      report.filesystem = mounts_private && mask_filesystem(policy, report);
      report.process_view =
          mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0;
      if (!report.process_view) report.unavailable.push_back(failure("process view: mounting /proc"));
    }
    const pid_t program = fork();
    if (program == 0) {
      close(status_pipe[1]);
      become_program(policy, mode, uid, report, report_fd, exec, 1, in_cgroup);
    }
    close(report_fd);
    int raw = 127 << 8;
    while (program > 0) {  // reaps every orphan; ends with the program
      int status = 0;
      const pid_t ended = waitpid(-1, &status, 0);
      if (ended == program) {
        raw = status;
        break;
      }
      if (ended < 0 && errno != EINTR) break;
    }
    [[maybe_unused]] const ssize_t written = write(status_pipe[1], &raw, sizeof raw);
    _exit(0);
  }
  (void)supervisor;
  close(status_pipe[1]);
  close(report_fd);
  int raw = 127 << 8;
  if (init > 0) {
    while (read(status_pipe[0], &raw, sizeof raw) < 0 && errno == EINTR) {
    }
    while (waitpid(init, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  end_like(raw);
}

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return text;
    }
  }
}

}  // namespace

Spawned spawn(const Policy& policy, const std::function<void()>& setup,
              const std::function<void()>& exec) {
  std::shared_ptr<Cgroup> cgroup;
  std::string no_cgroup;
  if (policy.limits.memory_bytes) cgroup = Cgroup::create(*policy.limits.memory_bytes, no_cgroup);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(failure("pipe2"));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const std::string reason = failure("fork");
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error(reason);
  }
  if (pid == 0) {
    close(fds[0]);
    run_child(policy, fds[1], setup, exec, parent, cgroup.get());
  }
  close(fds[1]);
  const std::string text = read_all(fds[0]);
  close(fds[0]);
  Spawned spawned{pid, {}, cgroup};
  spawned.report.enabled = true;
  try {
    spawned.report = nlohmann::json::parse(text).get<Report>();
  } catch (const nlohmann::json::exception&) {
    spawned.report.unavailable.push_back("the sandboxed program did not start");
  }
  if (policy.limits.memory_bytes && !cgroup) {
    spawned.report.unavailable.push_back("memory: no cgroup (" + no_cgroup + "), RLIMIT_DATA instead");
  }
  return spawned;
}

Spawned spawn_unsandboxed(const std::function<void()>& setup, const std::function<void()>& exec) {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(failure("fork"));
  if (pid == 0) {
    setup();
    Report report;  // not enabled: the program gets no protection, only the watcher
    watch_program({}, geteuid(), report, -1, exec, parent, false);
  }
  return {pid, {}, nullptr};
}

RunResult run_sandboxed(const std::string& command, const fs::path& workspace, Policy policy,
                        double timeout_seconds, size_t output_limit, std::stop_token stop) {
  const fs::path folder = fs::absolute(workspace);
  policy.writable.push_back(folder);
  // A minimal root has no /tmp of the host's: the command gets one of its own, removed after it.
  fs::path tmp;
  if (policy.minimal_root && policy.minimal_root->tmp.empty()) {
    std::string pattern = (fs::temp_directory_path() / "d2k-command-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error(failure("mkdtemp"));
    tmp = pattern;
    policy.minimal_root->tmp = tmp;
  }
  struct RemoveTmp {
    fs::path path;
    ~RemoveTmp() {
      std::error_code ignored;
      if (!path.empty()) fs::remove_all(path, ignored);
    }
  } remove_tmp{tmp};
  int output[2];
  if (pipe2(output, O_CLOEXEC) != 0) throw std::runtime_error(failure("pipe2"));
  Spawned spawned;
  try {
    spawned = spawn(
        policy,
        [&] {
          setsid();
          const int devnull = open("/dev/null", O_RDONLY);
          dup2(devnull, STDIN_FILENO);
          dup2(output[1], STDOUT_FILENO);
          dup2(output[1], STDERR_FILENO);
          if (policy.minimal_root) {
            setenv("TMPDIR", policy.minimal_root->tmp.c_str(), 1);
            setenv("HOME", policy.minimal_root->tmp.c_str(), 1);
          }
        },
        [&] {
          // After the mounts: a working folder taken earlier would still be the read-only one.
          if (chdir(folder.c_str()) != 0) _exit(126);
          execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        });
  } catch (...) {
    close(output[0]);
    close(output[1]);
    throw;
  }
  close(output[1]);
  RunResult result;
  result.report = spawned.report;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long long>(timeout_seconds * 1000));
  char buffer[8192];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    if (stop.stop_requested()) {
      result.cancelled = true;
      break;
    }
    // Short polls, so a cancellation is seen within a tenth of a second.
    pollfd ready{output[0], POLLIN, 0};
    if (poll(&ready, 1, static_cast<int>(std::min<long long>(left.count(), 100))) <= 0) continue;
    const ssize_t n = read(output[0], buffer, sizeof buffer);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
    if (n > 0 && result.output.size() < output_limit) {
      result.output.append(buffer, std::min(static_cast<size_t>(n), output_limit - result.output.size()));
    }
  }
  close(output[0]);
  if (result.timed_out || result.cancelled) {
    kill(-spawned.pid, SIGKILL);
    kill(spawned.pid, SIGKILL);
  }
  int raw = 0;
  while (waitpid(spawned.pid, &raw, 0) < 0 && errno == EINTR) {
  }
  kill(-spawned.pid, SIGKILL);
  result.exited = WIFEXITED(raw);
  result.status = result.exited ? WEXITSTATUS(raw) : WTERMSIG(raw);
  return result;
}

}  // namespace d2k::sandbox
