// Crash tests with real processes: a child (commitlog_crash_child) appends numbered messages to a
// commitlog store and reports each acknowledged one; the test kills it with SIGKILL at a random
// moment, reopens the store and checks it.
//
// SYNC_FLUSH: every acknowledged message is present, CRC-valid, at its queue offset; every queue
// is contiguous from 0. ASYNC_FLUSH: the same consistency, and any acknowledged message lost is
// among the last ones of its queue (the unflushed window). A SIGKILL leaves the page cache alone,
// so in practice nothing is lost here; losing the cache needs a machine crash. ASYNC_FLUSH with
// the transient store pool: an append is acknowledged once committed to the file, so as with
// SYNC_FLUSH no acknowledged message may be missing after a SIGKILL.
//
// Bounded: 5 rounds per mode, each child killed within a second of being ready and limited to 5 s
// of appending; every wait has a timeout.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "child_process.hpp"
#include "crash_config.hpp"
#include "mqkit/kernel/dispatch_pipeline.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "plugin_fixture.hpp"
#include "test_hooks.hpp"

namespace mqkit::testing::crash {
namespace {

namespace v1 = plugin::v1;
using namespace std::chrono_literals;

constexpr int kRounds = 5;
// ASYNC_FLUSH may lose at most this many acknowledged messages per queue, all at its end.
constexpr std::int64_t kAsyncLossBound = 256;

using Acked = std::map<int, std::set<std::int64_t>>;

void parse_acks(const std::string& output, Acked& acked) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    int queue = 0;
    long long offset = 0;
    if (std::sscanf(line.c_str(), "ack %d %lld", &queue, &offset) == 2) acked[queue].insert(offset);
  }
}

// Reads queue `queue` from 0 to `max`: every record CRC-valid, at its queue offset, with the body
// the child gave that offset.
void check_queue(v1::MessageStore& store, int queue, std::int64_t max) {
  EXPECT_EQ(store.min_offset(kTopic, queue), 0);
  std::int64_t expected = 0;
  while (expected < max) {
    v1::ReadRequest request;
    request.topic = kTopic;
    request.queue_id = queue;
    request.offset = expected;
    request.max_count = 256;
    request.max_bytes = 1 << 20;
    auto page = store.read(request);
    ASSERT_TRUE(page.is_ok()) << page.status().to_string();
    ASSERT_EQ(page->status, v1::ReadStatus::kFound) << "queue " << queue << " offset " << expected << " of " << max;
    for (const auto& slice : page->records) {
      auto record = v1::decode_record(slice.bytes, v1::CrcCheck::kVerify);
      ASSERT_TRUE(record.is_ok()) << record.status().to_string();
      EXPECT_EQ(record->queue_offset, expected) << "queue " << queue << " is not contiguous";
      const std::string body(reinterpret_cast<const char*>(record->body.data()), record->body.size());
      EXPECT_EQ(body, body_for(queue, expected));
      ++expected;
    }
  }
  EXPECT_EQ(expected, max);
}

// Opens the store the child left behind, lets dispatch catch up and checks every queue. Returns
// the next offset of each queue.
std::map<int, std::int64_t> verify_store(const std::string& dir, const std::string& flush, const Acked& acked,
                                         bool stop_uncleanly) {
  std::map<int, std::int64_t> ends;
  auto store = load_plugin<v1::MessageStore>("commitlog", store_config(dir, flush));
  if (!store) return ends;
  auto report = store->start();
  EXPECT_TRUE(report.is_ok()) << report.status().to_string();
  if (!report.is_ok()) return ends;
  kernel::DispatchPipeline pipeline(store);
  pipeline.start(report->dispatch_from_offset);
  EXPECT_TRUE(pipeline.wait_dispatched(store->stats().commit_log_max_offset, 20s)) << pipeline.last_error().to_string();

  for (int queue = 0; queue < kQueues; ++queue) {
    const std::int64_t max = store->max_offset(kTopic, queue);
    check_queue(*store, queue, max);
    ends[queue] = max;

    const auto it = acked.find(queue);
    if (it == acked.end()) continue;
    std::int64_t lost = 0;
    for (const std::int64_t offset : it->second) {
      if (offset >= max) ++lost;
    }
    if (flush == "SYNC_FLUSH" || flush == kAsyncFlushWithPool) {
      EXPECT_EQ(lost, 0) << "queue " << queue << ": acknowledged messages missing after the crash (max offset " << max
                         << ", highest acknowledged " << *it->second.rbegin() << ")";
    } else {
      // Anything lost is a tail of the queue: max offset cuts the acknowledged set once.
      EXPECT_LE(lost, kAsyncLossBound) << "queue " << queue;
    }
  }
  // A key of the most recent record survives in the index.
  if (!ends.empty() && ends[0] > 0) {
    const std::string key = "k-0-" + std::to_string(ends[0] - 1);
    auto found = store->query_by_key(kTopic, key, 4, 0, std::numeric_limits<std::int64_t>::max());
    EXPECT_TRUE(found.is_ok() && found->records.size() == 1) << key;
  }
  pipeline.stop();
  if (stop_uncleanly) {
    // Leave it as a crash would, so the next child also starts with crash recovery.
    static_cast<plugins::stores::commitlog::TestHooks*>(store->extension(plugins::stores::commitlog::kTestHooksId))
        ->simulate_crash();
  } else {
    store->shutdown();
  }
  return ends;
}

void run_rounds(const std::string& flush) {
  const std::string dir = fresh_directory("commitlog-crash-" + flush).string();
  const unsigned seed = static_cast<unsigned>(std::random_device{}());
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> kill_after_ms(100, 900);
  Acked acked;
  std::int64_t total_acked = 0;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round) + " (seed " + std::to_string(seed) + ")");
    const std::string pause_us = flush == "SYNC_FLUSH" ? "0" : "200";
    auto child = ChildProcess::spawn("commitlog_crash_child", {dir, flush, "5", pause_us},
                                     "commitlog-crash-" + flush + "-" + std::to_string(round));
    ASSERT_TRUE(child.is_ok()) << child.status().to_string();
    auto ready = child->wait_ready(20s);
    ASSERT_TRUE(ready.is_ok()) << ready.status().to_string();
    // Drain the acknowledgements while the child runs, so it never blocks on a full pipe.
    const auto kill_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(kill_after_ms(random));
    while (std::chrono::steady_clock::now() < kill_at && child->running()) {
      (void)child->output();
      std::this_thread::sleep_for(10ms);
    }
    EXPECT_TRUE(child->running()) << "the child stopped before it was killed; log:\n" << child->log_tail();
    child->kill();
    Acked this_round;
    parse_acks(child->output(), this_round);
    std::int64_t count = 0;
    for (const auto& [queue, offsets] : this_round) {
      count += static_cast<std::int64_t>(offsets.size());
      acked[queue].insert(offsets.begin(), offsets.end());
    }
    total_acked += count;
    EXPECT_GT(count, 0) << "the child acknowledged nothing before it was killed";
    const auto ends = verify_store(dir, flush, acked, /*stop_uncleanly=*/round % 2 == 0);
    std::printf("[ %s round %d ] %lld acknowledged, queue ends:", flush.c_str(), round, static_cast<long long>(count));
    for (const auto& [queue, end] : ends) std::printf(" %d:%lld", queue, static_cast<long long>(end));
    std::printf("\n");
  }
  EXPECT_GT(total_acked, 0);
  // Kept for diagnosis when something failed; a passing run leaves nothing behind.
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

TEST(CommitLogCrashTest, SyncFlushLosesNoAcknowledgedMessage) { run_rounds("SYNC_FLUSH"); }

TEST(CommitLogCrashTest, AsyncFlushRecoversToAConsistentStore) { run_rounds("ASYNC_FLUSH"); }

TEST(CommitLogCrashTest, AsyncFlushWithTheTransientStorePoolRecoversToAConsistentStore) {
  run_rounds(kAsyncFlushWithPool);
}

}  // namespace
}  // namespace mqkit::testing::crash
