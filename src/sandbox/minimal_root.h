#pragma once
// Building the program's filesystem from nothing (policy.h, MinimalRoot), inside a mount
// namespace whose mounts are already private.

#include <filesystem>
#include <string>

#include "sandbox/policy.h"
#include "sandbox/report.h"

namespace d2k::sandbox {

// Mounts a tmpfs at `staging` and binds into it, at their own paths, what the policy lists:
// system paths and the readable entries read-only, the writable ones writable, the devices under
// /dev; then covers the hidden paths. False, with the reason in `report`, when a step failed; the
// caller then detaches `staging` and masks the host's tree instead.
bool build_root(const Policy& policy, const std::filesystem::path& staging, Report& report);

// Makes the built tree the root: /proc mounted (by the PID namespace's init, which must call
// this), the host's tree detached, the tree's own tmpfs read-only.
bool enter_root(const std::filesystem::path& staging, Report& report);

}  // namespace d2k::sandbox
