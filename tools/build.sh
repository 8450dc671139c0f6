#!/usr/bin/env bash
# Configures and builds d2k in ./build against Debian's system Python (where python3-torch
# lives), whatever `python3` comes first on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${D2K_PYTHON:-/usr/bin/python3}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DD2K_PYTHON="$python" > /dev/null
cmake --build build -j "$(nproc)"
