#!/usr/bin/env bash
# Installs, from Debian 12's packages, everything d2k needs to build and test. Safe to re-run.
set -euo pipefail
packages=(
  g++ cmake ninja-build pkg-config        # build
  nlohmann-json3-dev libcli11-dev libfmt-dev libyaml-cpp-dev libsqlite3-dev libdlpack-dev
  libxxhash-dev pybind11-dev python3-dev   # libraries (README: "Dependencies")
  libcpp-httplib-dev libssl-dev            # the judge's HTTP(S) client
  libmuparser-dev                          # formulas in task configs (work model, memory bound)
  libgsl-dev                              # chi-square p-values of the distribution check
  libgtest-dev libgmock-dev               # tests
  chromium                                # tests: the HTML report loads without console errors
  python3-torch python3-numpy             # the CPU end-to-end tests run real PyTorch
  slurmctld slurmd slurm-client munge     # tests: the sweep's slurm executor on a one-node Slurm
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# Node.js and npm run the JSON Schema oracle (tests/schema_oracle) and the MCP SDK client that
# drives `d2k mcp` (tests/mcp_client); any installation will do.
command -v node > /dev/null && command -v npm > /dev/null || missing+=(nodejs npm)
[ ${#missing[@]} -eq 0 ] && exit 0
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
