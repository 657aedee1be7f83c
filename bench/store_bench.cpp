// store_bench: what a store plugin costs per message, next to what the machine needs for the
// same bytes at the least (memcpy + crc32), so results read as a ratio.
//
//   store_bench [--store=NAME] [--store-config=key=value,...] [Google Benchmark flags]
//
// The store (default `memory`, or $MQKIT_BENCH_STORE) is loaded from the build's plugin
// directory through the kernel's registry, started, and fed to the kernel's DispatchPipeline as
// in a broker, so every append benchmark includes dispatch (consume queue and index building) on
// the reput thread. A store with a `store_path` key gets a fresh temporary directory. Each
// benchmark is bounded by time (or a fixed message count when paced) and reports items/s,
// bytes/s of message bodies, and the process CPU time per message (all threads).
//
// Threads: benchmarks run one at a time on the main thread; the store's threads and the reput
// thread run beside it.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>
#include <time.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "mqkit/kernel/dispatch_pipeline.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "plugin_fixture.hpp"
// Commitlog-only benchmarks: crash-stop hook and the synchronous append used by its tests.
#include "../plugins/stores/commitlog/tests/append_and_wait.hpp"
#include "../plugins/stores/commitlog/test_hooks.hpp"

namespace {

namespace v1 = mqkit::plugin::v1;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string store = "memory";
  std::map<std::string, std::string> config;
};
Options& options() {
  static Options instance;
  return instance;
}

// Memory stores get a budget that holds a few seconds of appends without swapping the machine.
const std::map<std::string, std::string> kMemoryDefaults = {{"memory_budget", "512MiB"}};

double process_cpu_ns() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

// A started store with its dispatch pipeline; removes its directory when done.
class BenchStore {
 public:
  // `extra` overrides the command line's config; a given `directory` is used and kept.
  explicit BenchStore(const std::map<std::string, std::string>& extra = {}, const std::filesystem::path& directory = {}) {
    auto config = options().config;
    if (options().store == "memory") config.insert(kMemoryDefaults.begin(), kMemoryDefaults.end());
    for (const auto& [key, value] : extra) config[key] = value;
    if (!directory.empty()) config["store_path"] = directory.string();
    if (options().store == "commitlog" && !config.contains("store_path")) {
      std::string pattern = (std::filesystem::temp_directory_path() / "mqkit-store-bench-XXXXXX").string();
      if (mkdtemp(pattern.data()) != nullptr) directory_ = pattern;
      config["store_path"] = directory_.string();
    }
    auto object = mqkit::testing::try_load_plugin_object(v1::Category::kStore, options().store, config);
    if (!object) {
      error_ = object.status().to_string();
      return;
    }
    store_ = std::static_pointer_cast<v1::MessageStore>(std::move(object).value());
    auto started = store_->start();
    if (!started) {
      error_ = started.status().to_string();
      return;
    }
    pipeline_ = std::make_unique<mqkit::kernel::DispatchPipeline>(store_);
    pipeline_->start(started->dispatch_from_offset);
  }
  std::shared_ptr<v1::MessageStore> shared_store() { return store_; }
  // Stops dispatch, then the store as a killed process would (commitlog test hook).
  bool crash() {
    auto* hooks = static_cast<mqkit::plugins::stores::commitlog::TestHooks*>(
        store_->extension(mqkit::plugins::stores::commitlog::kTestHooksId));
    if (hooks == nullptr) return false;
    pipeline_.reset();
    hooks->simulate_crash();
    store_.reset();
    return true;
  }
  ~BenchStore() {
    pipeline_.reset();
    if (store_) store_->shutdown();
    store_.reset();
    if (!directory_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(directory_, ignored);
    }
  }
  BenchStore(const BenchStore&) = delete;
  BenchStore& operator=(const BenchStore&) = delete;

  // Empty when the store is ready.
  const std::string& error() const { return error_; }
  const std::filesystem::path& directory() const { return directory_; }
  v1::MessageStore& store() { return *store_; }

  // Appends without waiting: the callback counts completions, as a broker's would.
  void append(const v1::MessageToAppend& message) {
    ++issued_;
    store_->append(std::span(&message, 1), {}, [this](v1::Result<v1::AppendResult> result) {
      if (!result) failed_.store(true, std::memory_order_relaxed);
      completed_.fetch_add(1, std::memory_order_release);
    });
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }

  // Waits for every callback, then for dispatch to catch up: appends only count once readable.
  bool drain() {
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (completed_.load(std::memory_order_acquire) < issued_) {
      if (Clock::now() > deadline) return false;
      std::this_thread::yield();
    }
    pipeline_->notify_appended();
    return pipeline_->wait_dispatched(store_->stats().commit_log_max_offset, std::chrono::seconds(60));
  }

 private:
  std::filesystem::path directory_;
  std::string error_;
  std::shared_ptr<v1::MessageStore> store_;
  std::unique_ptr<mqkit::kernel::DispatchPipeline> pipeline_;
  std::int64_t issued_ = 0;
  std::atomic<std::int64_t> completed_{0};
  std::atomic<bool> failed_{false};
};

// Messages as a producer sends them: a body, TAGS, and a UNIQ_KEY different for every message
// (so the store indexes one new key per message, as with real clients).
class MessageSource {
 public:
  MessageSource(std::size_t body_size, int topics, int queues, std::uint64_t first_key = 0)
      : body_(body_size, 'x'), queues_(queues), sequence_(first_key) {
    for (int t = 0; t < topics; ++t) topics_.push_back("BenchTopic" + std::to_string(t));
    properties_ = v1::encode_properties({{"TAGS", "TagA"}, {"UNIQ_KEY", std::string(32, '0')}});
    key_at_ = properties_.find(std::string(32, '0'));
    message_.body = {reinterpret_cast<const std::uint8_t*>(body_.data()), body_.size()};
    message_.properties = properties_;
    message_.born_timestamp = 1'700'000'000'000;
    message_.store_host.ip = {127, 0, 0, 1};
    message_.store_host.port = 10911;
  }

  // The next message, round robin over every queue of every topic. Valid until the next call.
  const v1::MessageToAppend& next() {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::uint64_t n = sequence_++;
    for (std::size_t i = 0; i < 16; ++i, n >>= 4) properties_[key_at_ + 31 - i] = kHex[n & 0xF];
    const std::size_t slot = static_cast<std::size_t>(sequence_ % (topics_.size() * static_cast<std::size_t>(queues_)));
    message_.topic = topics_[slot / static_cast<std::size_t>(queues_)];
    message_.queue_id = static_cast<std::int32_t>(slot % static_cast<std::size_t>(queues_));
    return message_;
  }
  std::int32_t record_size() const { return v1::record_size(message_); }

 private:
  std::string body_;
  std::vector<std::string> topics_;
  int queues_;
  std::string properties_;
  std::size_t key_at_ = 0;
  std::uint64_t sequence_ = 0;
  v1::MessageToAppend message_;
};

void report(benchmark::State& state, std::size_t body_size, double cpu_ns) {
  const auto messages = static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(messages);
  state.SetBytesProcessed(messages * static_cast<std::int64_t>(body_size));
  state.counters["cpu_ns_per_msg"] = benchmark::Counter(messages > 0 ? cpu_ns / static_cast<double>(messages) : 0);
}

// Appends `state.iterations()` messages from one writer; with a rate, paces them to that many
// messages per second so different layouts can be compared at the same offered load. Every
// queue gets one message first, untimed: a queue's directory and first file are made once in
// its life, and with thousands of queues that one-time cost (mkdir + create on the file system)
// would otherwise fill a one-second run.
void run_appends(benchmark::State& state, std::size_t body_size, int topics, int queues, std::int64_t rate,
                 const std::map<std::string, std::string>& config = {}) {
  BenchStore bench(config);
  if (!bench.error().empty()) {
    state.SkipWithError(bench.error().c_str());
    return;
  }
  MessageSource source(body_size, topics, queues);
  for (int i = 0; i < topics * queues; ++i) bench.append(source.next());
  if (!bench.drain()) {
    state.SkipWithError("creating the queues failed");
    return;
  }
  const auto interval = rate > 0 ? std::chrono::nanoseconds(1'000'000'000 / rate) : std::chrono::nanoseconds(0);
  const double cpu_start = process_cpu_ns();
  const auto start = Clock::now();
  std::int64_t sent = 0;
  for (auto _ : state) {
    bench.append(source.next());
    if (rate > 0 && ++sent % 256 == 0) std::this_thread::sleep_until(start + interval * sent);
  }
  if (!bench.drain() || bench.failed()) {
    state.SkipWithError("appends failed or dispatch did not catch up");
    return;
  }
  report(state, body_size, process_cpu_ns() - cpu_start);
  state.counters["record_bytes"] = source.record_size();
  // items/s above stops with the writer's loop; this one also waits for dispatch (readable).
  const double drained_s = std::chrono::duration<double>(Clock::now() - start).count();
  state.counters["msgs_per_s_dispatched"] = static_cast<double>(state.iterations()) / drained_s;
}

void BM_Append(benchmark::State& state) {
  run_appends(state, static_cast<std::size_t>(state.range(0)), 1, 1, 0);
}

// BM_Append through the commitlog store's transient store pool (RocketMQ's
// transientStorePoolEnable, default pool and commit settings): the writer copies into pre-touched
// buffers, a commit service pwrites them into the commit log.
bool need_commitlog(benchmark::State& state);
void BM_AppendPool(benchmark::State& state) {
  if (!need_commitlog(state)) return;
  run_appends(state, static_cast<std::size_t>(state.range(0)), 1, 1, 0, {{"transient_store_pool_enable", "true"}});
}

// Topics x queues at a paced rate (0 = as fast as one writer goes).
void BM_AppendSpread(benchmark::State& state) {
  run_appends(state, 128, static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), state.range(2));
}

// The least work an append of the same message must do: copy the record's bytes into a log
// buffer (sequentially, through a region as large as the memory store's budget) and CRC the body.
// range(1) = 0: with zlib's crc32 (the baseline as first defined); 1: with the CRC the stores use
// (plugin-api's body_crc, libdeflate: the same value, several times faster).
void BM_MemcpyCrc32(benchmark::State& state) {
  MessageSource source(static_cast<std::size_t>(state.range(0)), 1, 1);
  const auto record_size = static_cast<std::size_t>(source.record_size());
  const std::vector<std::uint8_t> record(record_size, 0x5A);
  static std::vector<std::uint8_t> log(512u << 20);
  const std::size_t body_size = static_cast<std::size_t>(state.range(0));
  std::size_t position = 0;
  const double cpu_start = process_cpu_ns();
  for (auto _ : state) {
    if (position + record_size > log.size()) position = 0;
    std::memcpy(log.data() + position, record.data(), record_size);
    const std::span<const std::uint8_t> body(log.data() + position + 88, body_size);
    if (state.range(1) == 0) {
      benchmark::DoNotOptimize(crc32(0L, body.data(), static_cast<uInt>(body.size())));
    } else {
      benchmark::DoNotOptimize(v1::body_crc(body));
    }
    position += record_size;
  }
  benchmark::ClobberMemory();
  report(state, body_size, process_cpu_ns() - cpu_start);
  state.counters["record_bytes"] = static_cast<double>(record_size);
}

// A consumer reading 32 messages at a time from a queue whose messages are all in memory (hot).
void BM_ReadHot(benchmark::State& state) {
  constexpr std::int64_t kMessages = 100'000;
  constexpr std::int32_t kBatch = 32;
  const auto body_size = static_cast<std::size_t>(state.range(0));
  BenchStore bench;
  if (!bench.error().empty()) {
    state.SkipWithError(bench.error().c_str());
    return;
  }
  MessageSource source(body_size, 1, 1);
  for (std::int64_t i = 0; i < kMessages; ++i) bench.append(source.next());
  if (!bench.drain()) {
    state.SkipWithError("preloading failed");
    return;
  }
  v1::ReadRequest request;
  request.topic = "BenchTopic0";
  request.max_count = kBatch;
  request.max_bytes = 1 << 20;
  const std::int64_t min = bench.store().min_offset("BenchTopic0", 0);
  const std::int64_t max = bench.store().max_offset("BenchTopic0", 0);
  request.offset = min;
  std::int64_t messages = 0;
  const double cpu_start = process_cpu_ns();
  for (auto _ : state) {
    auto result = bench.store().read(request);
    if (!result || result->status != v1::ReadStatus::kFound) {
      state.SkipWithError("read failed");
      return;
    }
    messages += static_cast<std::int64_t>(result->records.size());
    request.offset = result->next_begin_offset >= max ? min : result->next_begin_offset;
  }
  const double cpu_ns = process_cpu_ns() - cpu_start;
  state.SetItemsProcessed(messages);
  state.SetBytesProcessed(messages * static_cast<std::int64_t>(body_size));
  state.counters["cpu_ns_per_msg"] = benchmark::Counter(messages > 0 ? cpu_ns / static_cast<double>(messages) : 0);
}

// ---- commitlog-only benchmarks (skipped for other stores) ----

bool need_commitlog(benchmark::State& state) {
  if (options().store == "commitlog") return true;
  state.SkipWithError("commitlog only");
  return false;
}

std::filesystem::path make_bench_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "mqkit-store-bench-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

double rss_anon_mib() {
  std::FILE* file = std::fopen("/proc/self/status", "r");
  if (file == nullptr) return -1;
  char line[256];
  double kib = -1;
  while (std::fgets(line, sizeof line, file) != nullptr) {
    if (std::strncmp(line, "RssAnon:", 8) == 0) kib = std::strtod(line + 8, nullptr);
  }
  std::fclose(file);
  return kib / 1024.0;
}

// The disk's own rate: write 1 KiB + fdatasync, in the directory the stores use. range(0) = 0:
// appending to a growing file (each fdatasync also commits the new size); 1: overwriting a
// preallocated 64 MiB file in sequence, as the commit log's preallocated files are written.
void BM_FsyncRate(benchmark::State& state) {
  const auto directory = make_bench_dir();
  const auto path = directory / "fsync-probe";
  const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0) {
    state.SkipWithError("open failed");
    return;
  }
  std::vector<char> block(1024, 'f');
  if (state.range(0) == 1) {
    std::vector<char> zeros(1 << 20, 0);
    for (int i = 0; i < 64; ++i) {
      if (::write(fd, zeros.data(), zeros.size()) != static_cast<ssize_t>(zeros.size())) state.SkipWithError("prealloc failed");
    }
    ::fsync(fd);
    ::lseek(fd, 0, SEEK_SET);
  }
  for (auto _ : state) {
    if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size()) || ::fdatasync(fd) != 0) {
      state.SkipWithError("write/fdatasync failed");
      break;
    }
  }
  ::close(fd);
  std::error_code ignored;
  std::filesystem::remove_all(directory, ignored);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

// The sync-flush benchmarks' counters: messages per second of wall time, CPU per message, and
// how many appends were answered FLUSH_DISK_TIMEOUT.
void report_sync_flush(benchmark::State& state, bool failed, double messages, double seconds, double cpu_ns,
                       std::int64_t timed_out) {
  if (failed) {
    state.SkipWithError("append failed");
    return;
  }
  state.counters["msgs_per_s"] = messages / seconds;
  state.counters["cpu_ns_per_msg"] = cpu_ns / messages;
  state.counters["flush_timed_out"] = static_cast<double>(timed_out);
}

// SYNC_FLUSH (group commit): range(0) writer threads, each appending one 1 KiB message and
// waiting for its callback (flushed) before the next; range(1) messages in all. One iteration.
void BM_SyncFlushWriters(benchmark::State& state) {
  if (!need_commitlog(state)) return;
  const int writers = static_cast<int>(state.range(0));
  const std::int64_t total = state.range(1);
  BenchStore bench(std::map<std::string, std::string>{{"flush_disk_type", "SYNC_FLUSH"}});
  if (!bench.error().empty()) {
    state.SkipWithError(bench.error().c_str());
    return;
  }
  std::atomic<bool> failed{false};
  std::atomic<std::int64_t> timed_out{0};
  double seconds = 0;
  double cpu_ns = 0;
  for (auto _ : state) {
    const auto start = Clock::now();
    const double cpu_start = process_cpu_ns();
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w) {
      threads.emplace_back([&, w] {
        MessageSource source(1024, 1, 1, static_cast<std::uint64_t>(w) << 40);
        const std::int64_t mine = total / writers;
        for (std::int64_t i = 0; i < mine; ++i) {
          const auto& message = source.next();
          auto result = mqkit::plugins::stores::commitlog::append_and_wait(bench.store(), std::span(&message, 1));
          if (!result) {
            failed = true;
            return;
          }
          if (result->flush_timed_out) ++timed_out;
        }
      });
    }
    for (auto& thread : threads) thread.join();
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
    cpu_ns = process_cpu_ns() - cpu_start;
    state.SetIterationTime(seconds);
  }
  report_sync_flush(state, failed, static_cast<double>((total / writers) * writers), seconds, cpu_ns, timed_out.load());
}

// SYNC_FLUSH as the broker drives it: range(0) writers each keep one 1 KiB message in flight,
// and no thread blocks per writer. One driver thread (the broker's I/O thread) appends whenever
// a flush callback has freed a writer, so a group commit of 64 costs one wake-up, not 64.
// range(1) messages in all. One iteration.
void BM_SyncFlushInFlight(benchmark::State& state) {
  if (!need_commitlog(state)) return;
  const std::int64_t writers = state.range(0);
  const std::int64_t total = state.range(1);
  BenchStore bench(std::map<std::string, std::string>{{"flush_disk_type", "SYNC_FLUSH"}});
  if (!bench.error().empty()) {
    state.SkipWithError(bench.error().c_str());
    return;
  }
  std::mutex mutex;
  std::condition_variable freed;
  std::int64_t idle_writers = 0;
  std::int64_t completed = 0;
  bool failed = false;
  std::int64_t timed_out = 0;
  const auto on_done = [&](v1::Result<v1::AppendResult> result) {
    std::lock_guard lock(mutex);
    if (!result) failed = true;
    else if (result->flush_timed_out) ++timed_out;
    ++completed;
    // One notify per group commit: the driver only sleeps when no writer was idle.
    if (idle_writers++ == 0 || completed == total) freed.notify_one();
  };
  double seconds = 0;
  double cpu_ns = 0;
  for (auto _ : state) {
    const auto start = Clock::now();
    const double cpu_start = process_cpu_ns();
    MessageSource source(1024, 1, 1);
    idle_writers = writers;
    std::int64_t issued = 0;
    while (issued < total) {
      std::int64_t ready = 0;
      {
        std::unique_lock lock(mutex);
        freed.wait(lock, [&] { return idle_writers > 0 || failed; });
        if (failed) break;
        ready = std::min(idle_writers, total - issued);
        idle_writers -= ready;
      }
      for (std::int64_t i = 0; i < ready; ++i, ++issued) {
        const auto& message = source.next();
        bench.store().append(std::span(&message, 1), v1::AppendOptions{}, on_done);
      }
    }
    std::unique_lock lock(mutex);
    freed.wait(lock, [&] { return completed == issued; });
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
    cpu_ns = process_cpu_ns() - cpu_start;
    state.SetIterationTime(seconds);
  }
  report_sync_flush(state, failed, static_cast<double>(total), seconds, cpu_ns, timed_out);
}

// Recovery after a crash: write range(0) MiB of 1 KiB messages (ASYNC), crash-stop, then time
// start() of a new store on the directory (abnormal recovery) plus dispatch until caught up.
void BM_CrashRecovery(benchmark::State& state) {
  if (!need_commitlog(state)) return;
  const std::int64_t mib = state.range(0);
  for (auto _ : state) {
    const auto directory = make_bench_dir();
    std::int64_t written = 0;
    {
      BenchStore bench(std::map<std::string, std::string>{}, directory);
      if (!bench.error().empty()) {
        state.SkipWithError(bench.error().c_str());
        return;
      }
      MessageSource source(1024, 1, 1);
      const std::int64_t record = source.record_size();
      const std::int64_t count = (mib << 20) / record;
      for (std::int64_t i = 0; i < count; ++i) bench.append(source.next());
      if (!bench.drain()) {
        state.SkipWithError("write failed");
        return;
      }
      written = bench.store().stats().commit_log_max_offset;
      if (!bench.crash()) {
        state.SkipWithError("no test-hooks extension");
        return;
      }
    }
    const auto start = Clock::now();
    double start_seconds = 0;
    std::int64_t recovered = 0;
    {
      auto object = mqkit::testing::try_load_plugin_object(
          v1::Category::kStore, "commitlog", {{"store_path", directory.string()}});
      if (!object) {
        state.SkipWithError(object.status().to_string().c_str());
        return;
      }
      auto store = std::static_pointer_cast<v1::MessageStore>(std::move(object).value());
      auto started = store->start();
      if (!started) {
        state.SkipWithError(started.status().to_string().c_str());
        return;
      }
      start_seconds = std::chrono::duration<double>(Clock::now() - start).count();
      mqkit::kernel::DispatchPipeline pipeline(store);
      pipeline.start(started->dispatch_from_offset);
      recovered = store->stats().commit_log_max_offset;
      pipeline.notify_appended();
      if (!pipeline.wait_dispatched(recovered, std::chrono::seconds(120))) {
        state.SkipWithError("dispatch did not catch up");
        return;
      }
      const double total_seconds = std::chrono::duration<double>(Clock::now() - start).count();
      state.SetIterationTime(total_seconds);
      const double gib = static_cast<double>(written) / static_cast<double>(1LL << 30);
      state.counters["written_GiB"] = gib;
      state.counters["recovered_bytes_lost"] = static_cast<double>(written - recovered);
      state.counters["start_s"] = start_seconds;
      state.counters["start_plus_dispatch_s"] = total_seconds;
      state.counters["s_per_GiB"] = total_seconds / gib;
      state.counters["dispatch_from"] = static_cast<double>(started->dispatch_from_offset);
      pipeline.stop();
      store->shutdown();
    }
    std::error_code ignored;
    std::filesystem::remove_all(directory, ignored);
  }
}

// RssAnon of the process with range(0) topics x 8 queues and a backlog of range(1) MiB of 1 KiB
// messages written (ASYNC) and dispatched.
void BM_RssAnonBacklog(benchmark::State& state) {
  if (!need_commitlog(state)) return;
  for (auto _ : state) {
    const double before = rss_anon_mib();
    BenchStore bench;
    if (!bench.error().empty()) {
      state.SkipWithError(bench.error().c_str());
      return;
    }
    MessageSource source(1024, static_cast<int>(state.range(0)), 8);
    const std::int64_t count = (state.range(1) << 20) / source.record_size();
    for (std::int64_t i = 0; i < count; ++i) bench.append(source.next());
    if (!bench.drain()) {
      state.SkipWithError("write failed");
      return;
    }
    const double after = rss_anon_mib();
    // Disk blocks the store directory takes (data files are sparse, reserved as they fill).
    std::uintmax_t disk_bytes = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(bench.directory())) {
      struct stat st {};
      if (entry.is_regular_file() && ::stat(entry.path().c_str(), &st) == 0) {
        disk_bytes += static_cast<std::uintmax_t>(st.st_blocks) * 512;
      }
    }
    state.counters["store_disk_MiB"] = static_cast<double>(disk_bytes) / (1 << 20);
    state.SetIterationTime(1);
    state.counters["rss_anon_before_MiB"] = before;
    state.counters["rss_anon_after_MiB"] = after;
    state.counters["rss_anon_store_MiB"] = after - before;
    state.counters["queues"] = static_cast<double>(state.range(0) * 8);
  }
}

BENCHMARK(BM_FsyncRate)->ArgName("preallocated")->Arg(0)->Arg(1)->Iterations(2000)->UseRealTime();
BENCHMARK(BM_SyncFlushWriters)->ArgNames({"writers", "messages"})
    ->Args({1, 3000})->Args({16, 48000})->Args({64, 128000})
    ->Iterations(1)->UseManualTime();
BENCHMARK(BM_SyncFlushInFlight)->ArgNames({"writers", "messages"})
    ->Args({1, 3000})->Args({16, 48000})->Args({64, 128000})
    ->Iterations(1)->UseManualTime();
BENCHMARK(BM_CrashRecovery)->Arg(1024)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RssAnonBacklog)->ArgNames({"topics", "mib"})->Args({1250, 1024})->Args({1250, 4096})->Iterations(1)->UseManualTime();

BENCHMARK(BM_MemcpyCrc32)->ArgNames({"body", "store_crc"})->ArgsProduct({{128, 1024}, {0, 1}})->MinTime(1.0);
BENCHMARK(BM_Append)->Arg(128)->Arg(1024)->MinTime(1.0)->UseRealTime();
BENCHMARK(BM_AppendPool)->Arg(128)->Arg(1024)->MinTime(1.0)->UseRealTime();
BENCHMARK(BM_AppendSpread)
    ->ArgNames({"topics", "queues", "rate"})
    ->Args({1, 1, 0})
    ->Args({1000, 8, 0})
    ->MinTime(1.0)
    ->UseRealTime();
BENCHMARK(BM_AppendSpread)
    ->ArgNames({"topics", "queues", "rate"})
    ->Args({1, 1, 200'000})
    ->Args({1000, 8, 200'000})
    ->Iterations(400'000)
    ->UseRealTime();
BENCHMARK(BM_AppendSpread)
    ->ArgNames({"topics", "queues", "rate"})
    ->Args({1, 1, 500'000})
    ->Args({1000, 8, 500'000})
    ->Iterations(1'000'000)
    ->UseRealTime();
BENCHMARK(BM_ReadHot)->Arg(128)->Arg(1024)->MinTime(1.0);

// Takes our own flags out of argv before Google Benchmark sees the rest.
void parse_store_flags(int* argc, char** argv) {
  if (const char* env = std::getenv("MQKIT_BENCH_STORE"); env != nullptr && *env != '\0') options().store = env;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--store=")) {
      options().store = std::string(arg.substr(8));
    } else if (arg.starts_with("--store-config=")) {
      std::string_view list = arg.substr(15);
      while (!list.empty()) {
        const std::string_view item = list.substr(0, list.find(','));
        const auto equals = item.find('=');
        if (equals != std::string_view::npos) {
          options().config[std::string(item.substr(0, equals))] = std::string(item.substr(equals + 1));
        }
        list.remove_prefix(std::min(list.size(), item.size() + 1));
      }
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
}

}  // namespace

int main(int argc, char** argv) {
  parse_store_flags(&argc, argv);
  benchmark::AddCustomContext("store", options().store);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
