#!/usr/bin/env bash
# Installs what is missing, builds, and runs mqkit on the default etc/ configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
bin=build/release/bin
echo "== plugins found by mqbroker (etc/broker.toml) =="
"$bin/mqbroker" -c etc/broker.toml --list-plugins
echo "== effective broker configuration =="
"$bin/mqbroker" -c etc/broker.toml --print-config
echo "== client plugins from etc/client.toml at work =="
"$bin/mqkit-plugin-demo" -c etc/client.toml
