#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh
cmake --preset relwithdebinfo >/dev/null
cmake --build --preset relwithdebinfo
ctest --preset relwithdebinfo -j "$(nproc)" --timeout 600
