#pragma once
// Starting a process inside the sandbox (docs/protocol.md, "Sandbox").
//
// The child gets, where the kernel allows: its own mount namespace in which the hidden paths are
// covered by empty stand-ins and every mount but the writable folders is read-only; an empty
// network namespace; its own PID namespace with a fresh /proc, so no other process (and no other
// process's view of the filesystem) is visible; and the rlimits of the policy. The masks are
// locked against being undone: in a user namespace by entering a second, less privileged one;
// as the host's root by dropping every capability. What could not be applied is said in the
// Report, never silently skipped.
//
// Where a minimal root is asked for (policy.h), the filesystem holds only what the policy lists;
// as the host's root, the program then runs as the overflow id ("nobody"). Memory is bounded by a
// cgroup where one can be made, else by RLIMIT_DATA.
//
// Process layout: the pid returned is a small supervisor outside the new PID namespace; inside
// it, an init process (pid 1) reaps and the program runs as pid 2, so that signals it sends
// itself behave as usual. The supervisor ends the way the program ended (same exit status, or
// the same signal), and killing the supervisor's process group kills all three. Each layer dies
// with its parent (PR_SET_PDEATHSIG), and the PID namespace ends with its init, so a killed
// caller leaves nothing running. Without namespaces the supervisor is a child subreaper that
// kills every process below it when the program ends or the caller dies.

#include <sys/types.h>

#include <functional>
#include <memory>
#include <stop_token>
#include <string>

#include "sandbox/policy.h"
#include "sandbox/report.h"

namespace d2k::sandbox {

class Cgroup;

struct Spawned {
  pid_t pid = -1;
  Report report;
  // The process tree's cgroup, where one was made: its last owner kills what is left in it.
  std::shared_ptr<Cgroup> cgroup;
};

// Forks. In the child, `setup` runs first (session, descriptors, environment), then the sandbox
// is entered, then `exec` runs in the sandboxed program's process and must exec or _exit.
// Returns once the program has been started (or has failed to start). Throws
// std::runtime_error when fork fails.
Spawned spawn(const Policy& policy, const std::function<void()>& setup,
              const std::function<void()>& exec);

// The same without any protection, but with the supervisor that ends the program's whole tree
// with it or with the caller; the report says the sandbox was disabled.
Spawned spawn_unsandboxed(const std::function<void()>& setup, const std::function<void()>& exec);

// How a sandboxed command ended.
struct RunResult {
  bool exited = false;
  int status = -1;  // exit status when `exited`, else the signal number
  bool timed_out = false;
  bool cancelled = false;  // killed because `stop` was requested
  std::string output;  // stdout and stderr together, up to the output limit
  Report report;
};

// `/bin/sh -c command` in `workspace` (which is added to the writable folders), stdin from
// /dev/null, killed with everything it started after `timeout_seconds` or as soon as `stop` is
// requested. For tools that run commands for an agent (the MCP `bash` tool) as well as for tests.
RunResult run_sandboxed(const std::string& command, const std::filesystem::path& workspace,
                        Policy policy, double timeout_seconds, size_t output_limit,
                        std::stop_token stop = {});

}  // namespace d2k::sandbox
