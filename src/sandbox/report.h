#pragma once
// Which protections of a sandbox took effect, and why the others did not. Recorded with every
// evaluation so that a result never claims a protection the kernel refused.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace d2k::sandbox {

struct Report {
  bool enabled = false;     // false: run without a sandbox on purpose
  bool filesystem = false;  // hidden paths masked, everything but the writable folders read-only
  bool network = false;     // an empty network namespace (loopback down, no interfaces)
  bool process_view = false;  // its own PID namespace and /proc: no other process is visible
  bool limits = false;        // every requested rlimit was set and is enforced
  bool minimal_root = false;  // the filesystem holds only what the policy lists (policy.h)
  bool unprivileged = false;  // runs as an id without privileges on the host, no capabilities
  std::vector<std::string> limits_in_force;  // "RLIMIT_CPU 3600", "memory.max 8589934592"
  std::vector<std::string> unavailable;  // one line per protection that failed, with the reason

  // "filesystem, network, processes, limits" or what is missing, for a person.
  std::string summary() const;
};

void to_json(nlohmann::json& j, const Report& v);
void from_json(const nlohmann::json& j, Report& v);

}  // namespace d2k::sandbox
