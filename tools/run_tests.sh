#!/usr/bin/env bash
# Sets everything up, builds, and runs every test (unit tests of each layer and the CPU
# end-to-end tests through the real worker). Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
# ajv, the oracle the schema validator is cross-checked against; in CI its test must not skip.
(cd tests/schema_oracle && npm ci --no-audit --no-fund)
export D2K_REQUIRE_SCHEMA_ORACLE=1
# The official MCP TypeScript SDK client that drives `d2k mcp`; in CI its test must not skip.
(cd tests/mcp_client && npm ci --no-audit --no-fund)
export D2K_REQUIRE_MCP_CLIENT=1
# Claude Code and Codex CLI, which the end-to-end tests run against loopback stand-ins of their
# model APIs; in CI their tests must not skip.
(cd tests/agents/clients && npm ci --no-audit --no-fund)
export D2K_REQUIRE_AGENT_CLIENTS=1
# Chromium (installed above) checks the HTML report; without it those tests would only skip.
export D2K_REQUIRE_CHROMIUM=1
# The CUDA toolkit's nvcc builds every native exploit and the tasks' CUDA C++ candidates; in CI
# those tests must not skip.
export D2K_REQUIRE_NVCC=1
# Slurm (installed above) runs the slurm sweep executor's test on a one-node cluster that the
# test starts itself (tools/slurm/start.sh); in CI it must not skip.
export D2K_REQUIRE_SLURM=1
tools/build.sh
# The GPU check's Python module (tools/gpucheck/), with the system interpreter.
/usr/bin/python3 -m unittest discover -s tools/gpucheck -t tools -p 'test_*.py'
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 600
