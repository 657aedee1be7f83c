#!/usr/bin/env bash
# Installs, from Debian 12 packages, whatever mqkit needs to build and test that is missing
# (or, given package names, just those).
# Safe to run again: packages already present are skipped and apt is not touched.
set -euo pipefail

packages=(
  g++ cmake ninja-build ccache pkg-config
  libboost-dev            # Boost 1.74: DLL, Asio (header-only parts)
  libtomlplusplus-dev     # toml++ 3.3, compiled library
  libspdlog-dev libfmt-dev
  rapidjson-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  zlib1g-dev libssl-dev   # zlib compression; MD5 for consistent-hash allocation, HmacSHA1 for ACL
  libdeflate-dev          # the body CRC-32 of every stored message (carry-less multiply)
  tao-pegtl-dev           # PEGTL 3.2 (header-only): the SQL92 message filter's grammar
  libjemalloc-dev         # the allocator of mqkit's programs (MQKIT_MALLOC)
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc  # mqproxy (RocketMQ 5 gRPC)
  nodejs npm              # the ali-ons interop tests
)
# A Node.js installed another way (e.g. a newer release) serves as well.
if command -v node >/dev/null && command -v npm >/dev/null; then
  packages=("${packages[@]/nodejs}")
  packages=("${packages[@]/npm}")
fi

# Package names as arguments: check and install only those (bench/compare.sh's extra tools).
if (($#)); then
  packages=("$@")
fi

missing=()
for p in "${packages[@]}"; do
  [ -n "$p" ] || continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: everything is installed"
fi
