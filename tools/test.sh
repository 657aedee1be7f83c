#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh
# The stock RocketMQ clients the interop tests drive (ali-ons, and RocketMQ 5's gRPC Node.js
# client through mqproxy; both from the npm registry).
if command -v npm >/dev/null; then
  (cd tests/interop/ali-ons && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  (cd tests/interop/grpc-nodejs && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  export MQKIT_REQUIRE_INTEROP=1
fi
cmake --preset relwithdebinfo >/dev/null
cmake --build --preset relwithdebinfo
ctest --preset relwithdebinfo -j "$(nproc)" --timeout 600
