#!/usr/bin/env bash
# Installs what is missing, builds, and runs mqkit on the default etc/ configuration: a name
# server on 9876, a broker on 10911 (store in ~/store), a producer sending 20 messages and a
# consumer pulling them back. The processes it starts are stopped when it ends.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
bin=build/release/bin
logs=build/release/quickstart
mkdir -p "$logs"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# Starts a server in the background and waits for its "ready on port" line.
start() {
  local name=$1; shift
  "$bin/$name" "$@" >"$logs/$name.out" 2>"$logs/$name.log" &
  pids+=($!)
  for _ in $(seq 1 100); do
    if grep -q "ready on port" "$logs/$name.out"; then echo "$name: $(cat "$logs/$name.out")"; return; fi
    if ! kill -0 "${pids[-1]}" 2>/dev/null; then echo "$name failed to start:"; cat "$logs/$name.log"; exit 1; fi
    sleep 0.1
  done
  echo "$name did not become ready; see $logs/$name.log"; exit 1
}

start mqnamesrv -c etc/namesrv.toml
start mqbroker -c etc/broker.toml
echo "== producer: 10 sync + 10 async sends to TopicTest =="
"$bin/example_producer" 127.0.0.1:9876
echo "== consumer: pull TopicTest back =="
"$bin/example_pull_messages" 127.0.0.1:9876 TopicTest | tail -25
echo "== done; server logs are in $logs =="
