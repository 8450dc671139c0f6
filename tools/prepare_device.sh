#!/usr/bin/env bash
# Prepares what the GPU machine needs to build d2k: it reaches no package registry, so the
# Debian packages that provide d2k's headers and static libraries are downloaded here and
# unpacked into .device/root (ignored by git), which a device run carries and points CMake at
# with -DCMAKE_PREFIX_PATH=$PWD/.device/root/usr. Python, PyTorch, Triton, pybind11 and CUDA are
# already on that machine.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(nlohmann-json3-dev libcli11-dev libfmt-dev libyaml-cpp-dev libsqlite3-dev libdlpack-dev
          libxxhash-dev libgtest-dev libgmock-dev)

rm -rf .device
mkdir -p .device/debs .device/root
if [ -z "${D2K_SKIP_APT_UPDATE:-}" ]; then apt-get update -qq; fi
(cd .device/debs && apt-get download -qq "${packages[@]}")
for deb in .device/debs/*.deb; do dpkg -x "$deb" .device/root; done
rm -rf .device/debs .device/root/usr/share/doc
du -sh .device/root
