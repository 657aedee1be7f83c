#!/usr/bin/env bash
# bench/compare.sh: mqkit against the baselines the project promises to beat, on 127.0.0.1 only.
#
#   bench/compare.sh [--quick] [--out FILE] [--build-dir DIR] [--no-build] [--broker-set KEY=VALUE]...
#
# Starts one mqnamesrv and one mqbroker (async flush, restarted fresh for the latency run, then a
# broker with sync flush), a Redis server (AOF everysec, likewise restarted for its latency run,
# then appendfsync always) and an iperf3 server, runs mqbench and
# bench/redis_stream_bench with the same counts, and prints each comparison with its ratio and
# target. Everything started here is stopped by PID on exit and the temp directory removed.
# The brokers' store is configured as etc/broker.toml ships it (commitlog, transient store pool
# on; SYNC_FLUSH ignores the pool), with 256 MiB commit log files.
# --quick: small counts, to check that the whole script works (numbers mean little).
# --broker-set: one more `--set KEY=VALUE` for both brokers (e.g. store.commit_log_page_cache_window=1GiB).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/release"
quick=0
do_build=1
out=""
broker_sets=()
while (($#)); do
  case "$1" in
    --quick) quick=1 ;;
    --no-build) do_build=0 ;;
    --build-dir) build=$(realpath "$2"); shift ;;
    --out) out=$(realpath -m "$2"); shift ;;
    --broker-set) broker_sets+=(--set "$2"); shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
  shift
done

if ((quick)); then
  n=20000; n_sync=5000; backlog=50000; rate_n=20000; iperf_s=2; warmup=0.5
else
  n=200000; n_sync=50000; backlog=1000000; rate_n=200000; iperf_s=10; warmup=2
fi
rate=10000

# ---- Tools -------------------------------------------------------------------------------
"$root/tools/install-deps.sh" redis-server redis-tools iperf3 jq libhiredis-dev

if ((do_build)); then
  if [ "$build" = "$root/build/release" ]; then
    [ -f "$build/build.ninja" ] || (cd "$root" && cmake --preset release >/dev/null)
    # A configure from before hiredis was installed skipped redis_stream_bench: look again.
    grep -q redis_stream_bench "$build/build.ninja" || (cd "$root" && cmake --preset release >/dev/null)
    (cd "$root" && cmake --build --preset release --target mqnamesrv mqbroker mqbench redis_stream_bench -j2)
  else
    cmake --build "$build" --target mqnamesrv mqbroker mqbench redis_stream_bench -j2
  fi
fi
bin="$build/bin"
for b in mqnamesrv mqbroker mqbench redis_stream_bench; do
  [ -x "$bin/$b" ] || { echo "compare: $bin/$b is missing (build it, or drop --no-build)" >&2; exit 1; }
done

load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" -v c="$(nproc)" 'BEGIN { exit !(l > c / 2) }'; then
  echo "compare: warning: load average $load on $(nproc) cores — other work is running; numbers will not be representative"
fi

# ---- Processes, stopped by PID on exit ---------------------------------------------------
tmp=$(mktemp -d /tmp/mqkit-compare.XXXXXX)
pids=()
stop_pid() {
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
  for pid in "${pids[@]}"; do stop_pid "$pid"; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits for "... ready on port N" in a log and prints N.
ready_port() {
  local log=$1 pid=$2
  for _ in $(seq 200); do
    local port
    port=$(grep -o 'ready on port [0-9]*' "$log" 2>/dev/null | head -1 | awk '{print $4}' || true)
    [ -n "$port" ] && { echo "$port"; return 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "compare: $(basename "$log" .out) did not start; its log:" >&2
  cat "${log%.out}.err" >&2 || true
  return 1
}

free_port() {
  local p
  for p in $(shuf -i 20000-60000 -n 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  echo "compare: no free port" >&2; exit 1
}

"$bin/mqnamesrv" --set namesrv.listen_host=127.0.0.1 --set namesrv.listen_port=0 \
  >"$tmp/namesrv.out" 2>"$tmp/namesrv.err" &
pids+=($!)
ns_port=$(ready_port "$tmp/namesrv.out" "${pids[-1]}")
namesrv="127.0.0.1:$ns_port"

broker_pid=""
start_broker() {  # $1 = ASYNC_FLUSH | SYNC_FLUSH
  "$bin/mqbroker" --set broker.broker_name=broker-a --set broker.broker_ip1=127.0.0.1 \
    --set broker.listen_host=127.0.0.1 --set broker.listen_port=0 --set broker.namesrv_addr="$namesrv" \
    --set store.plugin=commitlog --set store.store_path="$tmp/store-$1" --set store.flush_disk_type="$1" \
    --set store.mapped_file_size_commit_log=256MiB --set store.transient_store_pool_enable=true "${broker_sets[@]}" \
    >"$tmp/broker-$1.out" 2>"$tmp/broker-$1.err" &
  broker_pid=$!
  pids+=("$broker_pid")
  ready_port "$tmp/broker-$1.out" "$broker_pid" >/dev/null
  sleep 1  # registered with the name server
}
stop_broker() { stop_pid "$broker_pid"; rm -rf "$tmp/store-"*; }

redis_port=$(free_port)
redis_pid=""
start_redis() {  # $1 = everysec | always
  mkdir -p "$tmp/redis-$1"
  redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly yes --appendfsync "$1" \
    --dir "$tmp/redis-$1" --daemonize no --logfile "$tmp/redis-$1.log" &
  redis_pid=$!
  pids+=("$redis_pid")
  for _ in $(seq 100); do
    [ "$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" = PONG ] && return 0
    sleep 0.1
  done
  echo "compare: redis-server did not start" >&2; cat "$tmp/redis-$1.log" >&2; return 1
}
stop_redis() { stop_pid "$redis_pid"; rm -rf "$tmp/redis-"*; }

# ---- Runs --------------------------------------------------------------------------------
results="$tmp/results"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
: >"$results"
# Runs a driver, shows its summary, keeps its RESULT line under a name.
run() {
  local name=$1; shift
  echo "== $name"
  local output
  output=$("$@" 2>"$tmp/$name.progress") || { echo "compare: $name failed:"; tail -5 "$tmp/$name.progress"; echo "$output"; exit 1; }
  echo "$output" | grep -v '^RESULT ' | sed 's/^/   /'
  echo "$name $(echo "$output" | grep '^RESULT ' | tail -1 | cut -d' ' -f2-)" >>"$results"
}
get() { grep "^$1 " "$results" | cut -d' ' -f2- | jq -r "$2 // 0"; }

# How fast each CPU this script may use runs a busy loop, all at once for 0.5 s, relative to the
# fastest. A virtual machine's vCPUs need not be alike (one measured at 0.38 of the other while
# the guest reported no steal time), and the ratios below move with that.
cpu_speeds() {
  local list cpus=() part c spin=() counts=() max=0 out=""
  list=$(taskset -cp $$ | sed 's/.*: //')
  for part in ${list//,/ }; do
    if [[ $part == *-* ]]; then for ((c = ${part%-*}; c <= ${part#*-}; c++)); do cpus+=("$c"); done; else cpus+=("$part"); fi
  done
  for c in "${cpus[@]}"; do
    taskset -c "$c" bash -c 's=${EPOCHREALTIME/./}; n=0; while (( ${EPOCHREALTIME/./} - s < 500000 )); do ((n++)); done; echo $n' \
      >"$tmp/cpu-speed-$c" &
    spin+=($!)
  done
  wait "${spin[@]}"
  for c in "${cpus[@]}"; do counts+=("$(cat "$tmp/cpu-speed-$c")"); ((counts[-1] > max)) && max=${counts[-1]}; done
  for ((c = 0; c < ${#cpus[@]}; c++)); do out+=" cpu${cpus[c]} $(ratio "${counts[c]}" "$max")"; done
  echo "busy-loop speed of each CPU, relative to the fastest:$out"
}

# One topic of 4 queues, one producer, one consumer; a warm-up except for backlog runs.
mqbench() { "$bin/mqbench" --namesrv "$namesrv" --queues 4 --producers 1 --consumers 1 "$@"; }
redis_bench() { "$bin/redis_stream_bench" --port "$redis_port" "$@"; }

speeds_before=$(cpu_speeds)
echo "== before the runs, $speeds_before"
start_broker ASYNC_FLUSH
run mq_async_1k mqbench --topic cmp_async_1k --size 1024 --messages "$n" --mode async --warmup "$warmup"
run mq_async_128 mqbench --topic cmp_async_128 --size 128 --messages "$n" --mode async --warmup "$warmup"
# The same async sends with the producer's auto batching (auto_batch, default batch limits).
run mq_async_1k_ab mqbench --topic cmp_async_1k_ab --size 1024 --messages "$n" --mode async --auto-batch --warmup "$warmup"
run mq_async_128_ab mqbench --topic cmp_async_128_ab --size 128 --messages "$n" --mode async --auto-batch --warmup "$warmup"
run mq_batch_1k mqbench --topic cmp_batch_1k --size 1024 --messages "$n" --mode batch --batch-size 32 --warmup "$warmup"
# The latency run gets a fresh broker, as Redis's gets a fresh server: not one still writing back
# the gigabytes the throughput runs left dirty in the page cache.
stop_broker
start_broker ASYNC_FLUSH
run mq_rate mqbench --topic cmp_rate --size 1024 --messages "$rate_n" --rate "$rate" --mode async --warmup "$warmup"
run mq_backlog mqbench --topic cmp_backlog --size 1024 --messages "$backlog" --mode async --backlog
stop_broker
start_broker SYNC_FLUSH
run mq_syncflush mqbench --topic cmp_syncflush --size 1024 --messages "$n_sync" --mode async --warmup "$warmup"
stop_broker

start_redis everysec
run redis_1k redis_bench --variant aof-everysec --size 1024 --messages "$n"
run redis_128 redis_bench --variant aof-everysec --size 128 --messages "$n"
stop_redis
start_redis everysec
run redis_rate redis_bench --variant aof-everysec-rate --size 1024 --messages "$rate_n" --rate "$rate"
stop_redis
start_redis always
run redis_always redis_bench --variant aof-always --size 1024 --messages "$n_sync"
stop_redis

iperf_port=$(free_port)
iperf3 -s -1 -B 127.0.0.1 -p "$iperf_port" >"$tmp/iperf-server.log" 2>&1 &
pids+=($!)
sleep 0.5
iperf_mbps=$(iperf3 -c 127.0.0.1 -p "$iperf_port" -t "$iperf_s" -J | jq '.end.sum_received.bits_per_second / 8 / 1e6')
echo "== iperf3 loopback: $(printf '%.0f' "$iperf_mbps") MB/s"
speeds_after=$(cpu_speeds)

# ---- Comparisons -------------------------------------------------------------------------
verdict() { awk -v r="$1" -v t="$2" -v op="$3" 'BEGIN { if (r == "n/a") print "?"; else if ((op == ">=" && r >= t) || (op == "<=" && r <= t)) print "met"; else print "MISSED" }'; }
row() { printf '%-46s %14s %14s %8s %10s %7s\n' "$@"; }

echo
echo "mqkit vs baselines ($( ((quick)) && echo "quick counts" || echo "full counts"); $(nproc) cores; $(uptime | sed 's/.*load average/load/'))"
echo "before the runs, $speeds_before"
echo "after the runs,  $speeds_after"
row "comparison" "mqkit" "baseline" "ratio" "target" ""
a=$(get mq_async_1k .prod_msgs_s); b=$(get redis_1k .prod_msgs_s); r=$(ratio "$a" "$b")
row "plain async 1 KiB vs Redis XADD (AOF everysec)" "${a%.*} msg/s" "${b%.*} msg/s" "$r" ">= 2x" "$(verdict "$r" 2 ">=")"
a=$(get mq_async_128 .prod_msgs_s); b=$(get redis_128 .prod_msgs_s); r=$(ratio "$a" "$b")
row "plain async 128 B vs Redis XADD (AOF everysec)" "${a%.*} msg/s" "${b%.*} msg/s" "$r" ">= 2x" "$(verdict "$r" 2 ">=")"
a=$(get mq_async_1k_ab .prod_msgs_s); b=$(get redis_1k .prod_msgs_s); r=$(ratio "$a" "$b")
row "auto-batched async 1 KiB vs Redis XADD" "${a%.*} msg/s" "${b%.*} msg/s" "$r" ">= 2x" "$(verdict "$r" 2 ">=")"
a=$(get mq_async_128_ab .prod_msgs_s); b=$(get redis_128 .prod_msgs_s); r=$(ratio "$a" "$b")
row "auto-batched async 128 B vs Redis XADD" "${a%.*} msg/s" "${b%.*} msg/s" "$r" ">= 2x" "$(verdict "$r" 2 ">=")"
a=$(get mq_batch_1k .prod_MBps); b=$(awk -v x="$iperf_mbps" 'BEGIN { printf "%.1f", x / 2 }'); r=$(ratio "$a" "$b")
row "batch send 1 KiB vs 50% of iperf3 loopback" "${a%.*} MB/s" "${b%.*} MB/s" "$r" ">= 1x" "$(verdict "$r" 1 ">=")"
a=$(get mq_syncflush .prod_msgs_s); b=$(get redis_always .prod_msgs_s); r=$(ratio "$a" "$b")
row "sync flush broker vs Redis appendfsync always" "${a%.*} msg/s" "${b%.*} msg/s" "$r" ">= 2x" "$(verdict "$r" 2 ">=")"
a=$(get mq_rate .e2e_p99_us); b=$(get redis_rate .e2e_p99_us)
row "e2e p99 at $rate msg/s (Redis for reference)" "$(ratio "$a" 1000) ms" "$(ratio "$b" 1000) ms" "" "<= 1 ms" "$(verdict "$(ratio "$a" 1000)" 1 "<=")"
a=$(get mq_backlog .cons_msgs_s); b=$(get mq_backlog .prod_msgs_s); r=$(ratio "$a" "$b")
row "drain of a $backlog backlog vs producer rate" "${a%.*} msg/s" "${b%.*} msg/s" "$r" ">= 1x" "$(verdict "$r" 1 ">=")"
errors=$(cut -d' ' -f2- "$results" | jq -s 'map(.errors) | add')
echo "errors over all runs: $errors"
if [ -n "$out" ]; then
  { cat "$results"; echo "iperf3_loopback_MBps $iperf_mbps"; } >"$out"
  echo "RESULT lines written to $out"
fi
