#!/usr/bin/env bash
# Installs what is missing, builds, and runs mqkit on the default etc/ configuration: a name
# server on 9876, a broker on 10911 (store in ~/store), a producer sending 20 messages and a push
# consumer receiving them. The processes it starts are stopped when it ends.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
bin=build/release/bin
logs=build/release/quickstart
mkdir -p "$logs"

pids=()
# The broker first (it unregisters from the name server on its way out), then the name server.
cleanup() {
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[i]}" 2>/dev/null || true
    wait "${pids[i]}" 2>/dev/null || true
  done
}
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
# The consumer group starts at its committed offset; on its first run, at the messages stored
# since this moment (local time, as RocketMQ's consumeTimestamp).
since=$(date +%Y%m%d%H%M%S)
echo "== producer: 10 sync + 10 async sends to TopicTest =="
"$bin/example_producer" 127.0.0.1:9876
echo "== push consumer (group quickstart_consumer): receive them =="
timeout 60 "$bin/example_push_consumer" -c etc/client.toml --topic TopicTest --count 20 \
  --set client.namesrv_addr=127.0.0.1:9876 --set consumer.group=quickstart_consumer \
  --set consumer.consume_from_where=CONSUME_FROM_TIMESTAMP --set consumer.consume_timestamp="$since"
echo "== done; server logs are in $logs =="
