#!/usr/bin/env bash
# Prepares what a GPU host without access to package mirrors needs to build d2k: the Debian
# packages that provide d2k's headers and static libraries are downloaded here and unpacked into
# .device/root (ignored by git); copied to the GPU host with the checkout, the GPU check points
# CMake at it (-DCMAKE_PREFIX_PATH=$PWD/.device/root/usr). Python, PyTorch, Triton, pybind11 and
# CUDA must already be on that host.
set -euo pipefail
cd "$(dirname "$0")/.."

# cpp-httplib (the judge's client) and muparser (task formulas) are shared libraries: their
# runtime packages come too, found at run time through the build tree's RPATH. cpp-httplib needs
# OpenSSL's headers to compile against, and at run time the machine's own libssl3, zlib and
# brotli libraries. GSL (the distribution check) is linked from its static archives.
packages=(nlohmann-json3-dev libcli11-dev libfmt-dev libyaml-cpp-dev libsqlite3-dev libdlpack-dev
          libxxhash-dev libgtest-dev libgmock-dev libcpp-httplib-dev libcpp-httplib0.11
          libssl-dev libssl3 libmuparser-dev libmuparser2v5 libgsl-dev)

rm -rf .device
mkdir -p .device/debs .device/root
if [ -z "${D2K_SKIP_APT_UPDATE:-}" ]; then apt-get update -qq; fi
(cd .device/debs && apt-get download -qq "${packages[@]}")
for deb in .device/debs/*.deb; do dpkg -x "$deb" .device/root; done
rm -rf .device/debs .device/root/usr/share/doc
# d2k links OpenSSL as a shared library; its static archives would only weigh on every copy.
rm -f .device/root/usr/lib/*/libssl.a .device/root/usr/lib/*/libcrypto.a
du -sh .device/root
