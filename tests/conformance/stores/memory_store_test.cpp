// What only the memory store does: its memory budget and oldest-first eviction, its aliases, and
// records it drops or ignores before they are dispatched.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "mqkit/plugin/v1/store_admin.hpp"
#include "plugin_fixture.hpp"
#include "store_test_support.hpp"

namespace mqkit::testing::stores {
namespace {

using v1::ReadStatus;

const StoreKind kMemory{"memory", false};

// Budget and chunks small enough that a few hundred 1 KiB messages go through several evictions.
constexpr std::int64_t kBudget = 256 * 1024;
const std::map<std::string, std::string> kSmallBudget = {{"memory_budget", "256KiB"}, {"chunk_size", "16KiB"}};

TestMessage kilobyte_message(int i) {
  TestMessage m = message("TopicA", 0, std::string(1024, static_cast<char>('a' + i % 26)));
  m.keys("key-" + std::to_string(i));
  return m;
}

class MemoryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!StoreHarness::built(kMemory)) GTEST_SKIP() << "the memory store is not built";
  }

  // Appends `count` 1 KiB messages numbered from `first`; returns where they went.
  static std::vector<v1::AppendResult> fill(StoreHarness& harness, int first, int count) {
    std::vector<v1::AppendResult> placed;
    for (int i = first; i < first + count; ++i) {
      auto result = harness.append(kilobyte_message(i));
      EXPECT_TRUE(result.is_ok()) << result.status().to_string();
      if (result.is_ok()) placed.push_back(*result);
    }
    return placed;
  }
};

TEST_F(MemoryStoreTest, LoadsByItsAliases) {
  for (const char* name : {"memory", "MemoryMessageStore", "in_memory"}) {
    EXPECT_TRUE(try_load_plugin_object(v1::Category::kStore, name).is_ok()) << name;
  }
}

TEST_F(MemoryStoreTest, EvictsOldestMessagesToStayWithinBudget) {
  StoreHarness harness(kMemory, kSmallBudget);
  ASSERT_TRUE(harness.open().is_ok());
  const auto placed = fill(harness, 0, 600);
  ASSERT_TRUE(harness.wait_dispatched());
  auto& store = harness.store();

  const v1::StoreStats stats = store.stats();
  EXPECT_LE(stats.memory_bytes, kBudget);
  EXPECT_GT(stats.commit_log_min_offset, 0);
  EXPECT_EQ(stats.commit_log_max_offset, placed.back().commit_offset + placed.back().bytes);

  const std::int64_t min = store.min_offset("TopicA", 0);
  EXPECT_GT(min, 0);
  EXPECT_LT(min, 600);
  EXPECT_EQ(store.max_offset("TopicA", 0), 600);

  const auto too_small = harness.read("TopicA", 0, 0);
  EXPECT_EQ(too_small.status, ReadStatus::kOffsetTooSmall);
  EXPECT_EQ(too_small.next_begin_offset, min);
  EXPECT_EQ(too_small.min_offset, min);

  const auto oldest = harness.read("TopicA", 0, min, 1);
  ASSERT_EQ(oldest.status, ReadStatus::kFound);
  const auto record = decode(oldest.records.at(0));
  ASSERT_TRUE(record);
  EXPECT_EQ(record->queue_offset, min);
  EXPECT_GE(record->commit_offset, stats.commit_log_min_offset);
  EXPECT_EQ(harness.read_all("TopicA", 0).size(), static_cast<std::size_t>(600 - min));

  EXPECT_EQ(store.earliest_message_time("TopicA", 0).value(), record->store_timestamp);
  EXPECT_EQ(store.commit_offset_of("TopicA", 0, min).value(), record->commit_offset);
  EXPECT_FALSE(store.commit_offset_of("TopicA", 0, min - 1).is_ok());
  EXPECT_FALSE(store.read_at(placed.front().commit_offset).is_ok());
  EXPECT_TRUE(store.read_at(placed.back().commit_offset).is_ok());

  const auto query = [&](const std::string& key) {
    return store.query_by_key("TopicA", key, 32, 0, std::numeric_limits<std::int64_t>::max()).value().records.size();
  };
  EXPECT_EQ(query("key-0"), 0u) << "evicted messages leave the index";
  EXPECT_EQ(query("key-599"), 1u);
  // Offsets below the min offset are searched as if the queue started there.
  EXPECT_EQ(store.offset_by_time("TopicA", 0, 0, v1::TimeBoundary::kLower).value(), min);
}

TEST_F(MemoryStoreTest, SlicesHandedOutSurviveEviction) {
  StoreHarness harness(kMemory, kSmallBudget);
  ASSERT_TRUE(harness.open().is_ok());
  fill(harness, 0, 1);
  ASSERT_TRUE(harness.wait_dispatched());
  const auto first = harness.read("TopicA", 0, 0, 1);
  ASSERT_EQ(first.records.size(), 1u);
  const std::vector<std::uint8_t> copy(first.records[0].bytes.begin(), first.records[0].bytes.end());

  fill(harness, 1, 600);
  ASSERT_TRUE(harness.wait_dispatched());
  ASSERT_GT(harness.store().min_offset("TopicA", 0), 0) << "the first message is evicted";
  EXPECT_TRUE(std::ranges::equal(first.records[0].bytes, copy));
  EXPECT_TRUE(decode(first.records[0]));
}

TEST_F(MemoryStoreTest, AQueueWhoseMessagesWereAllEvictedCanBeDropped) {
  StoreHarness harness(kMemory, kSmallBudget);
  ASSERT_TRUE(harness.open().is_ok());
  auto* admin = static_cast<v1::StoreAdmin*>(harness.store().extension(v1::kStoreAdminId));
  ASSERT_NE(admin, nullptr);
  ASSERT_TRUE(harness.append(message("Old", 2, "old")).is_ok());
  ASSERT_TRUE(harness.wait_dispatched());
  EXPECT_FALSE(admin->drop_expired_queue("Old", 2).value()) << "its message is still held";
  fill(harness, 0, 600);  // TopicA pushes Old's message out of the budget
  ASSERT_TRUE(harness.wait_dispatched());
  EXPECT_TRUE(admin->drop_expired_queue("Old", 2).value());
  EXPECT_FALSE(admin->drop_expired_queue("TopicA", 0).value());
  const std::vector<v1::QueueRef> left = admin->queues().value();
  for (const auto& queue : left) EXPECT_NE(queue.topic, "Old");
  const auto again = harness.append(message("Old", 2, "again"));
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(again->queue_offset, 0) << "a dropped queue starts again at 0, as in RocketMQ";
  // The memory store has no files to delete on request.
  EXPECT_EQ(admin->delete_expired_files().status().code(), v1::StatusCode::kNotSupported);
}

TEST_F(MemoryStoreTest, MessageLargerThanTheBudgetIsRefused) {
  StoreHarness harness(kMemory, kSmallBudget);
  ASSERT_TRUE(harness.open().is_ok());
  const auto refused = harness.append(message("TopicA", 0, std::string(kBudget + 1, 'x')));
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().code(), v1::StatusCode::kResourceExhausted) << refused.status().to_string();
  EXPECT_EQ(harness.store().stats().commit_log_max_offset, 0);

  // Larger than a chunk but within the budget: stored in a chunk of its own.
  const auto large = harness.append(message("TopicA", 0, std::string(40 * 1024, 'y')));
  ASSERT_TRUE(large.is_ok()) << large.status().to_string();
  EXPECT_EQ(large->queue_offset, 0);
  fill(harness, 0, 3);
  ASSERT_TRUE(harness.wait_dispatched());
  EXPECT_EQ(harness.read_all("TopicA", 0).size(), 4u);
}

// Reads, queries and lookups by commit offset while one thread appends through many evictions
// and the reput thread dispatches: every record handed out must be whole and where it says.
TEST_F(MemoryStoreTest, ReadersRunConcurrentlyWithAppendsAndEviction) {
  StoreHarness harness(kMemory, kSmallBudget);
  ASSERT_TRUE(harness.open().is_ok());
  constexpr int kMessages = 2000;
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    fill(harness, 0, kMessages);
    writing.store(false);
  });
  auto& store = harness.store();
  const auto check_oldest_page = [&] {
    const auto page = harness.read("TopicA", 0, store.min_offset("TopicA", 0));
    if (page.status != ReadStatus::kFound) return;
    for (std::size_t i = 0; i < page.records.size(); ++i) {
      const auto record = decode(page.records[i]);
      ASSERT_TRUE(record);
      EXPECT_EQ(record->queue_offset, page.queue_offsets[i]);
      EXPECT_TRUE(store.read_at(record->commit_offset).is_ok() ||
                  store.stats().commit_log_min_offset > record->commit_offset);
    }
    const std::string key = "key-" + std::to_string(page.queue_offsets.back());
    const auto found = store.query_by_key("TopicA", key, 32, 0, std::numeric_limits<std::int64_t>::max());
    ASSERT_TRUE(found.is_ok());
    for (const auto& slice : found->records) EXPECT_TRUE(decode(slice));
  };
  while (writing.load()) check_oldest_page();
  writer.join();
  ASSERT_TRUE(harness.wait_dispatched());
  check_oldest_page();
  EXPECT_EQ(store.max_offset("TopicA", 0), kMessages);
  EXPECT_LE(store.stats().memory_bytes, kBudget);
}

TEST_F(MemoryStoreTest, MessagesEvictedBeforeDispatchAreSkipped) {
  StoreHarness harness(kMemory, kSmallBudget);
  ASSERT_TRUE(harness.open(/*dispatch=*/false).is_ok());
  fill(harness, 0, 600);
  ASSERT_GT(harness.store().stats().commit_log_min_offset, 0);
  harness.start_dispatch();
  ASSERT_TRUE(harness.wait_dispatched());

  const std::int64_t min = harness.store().min_offset("TopicA", 0);
  EXPECT_GT(min, 0);
  EXPECT_EQ(harness.store().max_offset("TopicA", 0), 600);
  const auto records = harness.read_all("TopicA", 0);
  ASSERT_EQ(records.size(), static_cast<std::size_t>(600 - min));
  EXPECT_EQ(decode(records.front())->queue_offset, min);
  EXPECT_EQ(harness.read("TopicA", 0, min - 1).status, ReadStatus::kOffsetTooSmall);
}

TEST_F(MemoryStoreTest, RecordsOfADeletedTopicDispatchedLateAreIgnored) {
  StoreHarness harness(kMemory);
  ASSERT_TRUE(harness.open(/*dispatch=*/false).is_ok());
  TestMessage old_message = message("TopicA", 0, "old");
  old_message.keys("shared-key");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(harness.append(old_message).is_ok());
  ASSERT_TRUE(harness.store().delete_topic("TopicA").is_ok());
  TestMessage new_message = message("TopicA", 0, "new");
  new_message.keys("shared-key");
  const auto fresh = harness.append(new_message);
  ASSERT_TRUE(fresh.is_ok());
  EXPECT_EQ(fresh->queue_offset, 0);

  harness.start_dispatch();
  ASSERT_TRUE(harness.wait_dispatched());
  const auto records = harness.read_all("TopicA", 0);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(text(decode(records[0])->body), "new");
  EXPECT_EQ(harness.store().max_offset("TopicA", 0), 1);
  const auto found = harness.store().query_by_key("TopicA", "shared-key", 32, 0, std::numeric_limits<std::int64_t>::max());
  ASSERT_TRUE(found.is_ok());
  ASSERT_EQ(found->records.size(), 1u) << "the deleted topic's messages are not found by key";
  EXPECT_EQ(text(decode(found->records[0])->body), "new");
}

// A slave copying a disk store's commit log receives its end-of-file blanks too.
TEST_F(MemoryStoreTest, ReplicatedBlankLeavesAGapDispatchSkips) {
  StoreHarness harness(kMemory);
  ASSERT_TRUE(harness.open().is_ok());
  constexpr std::int32_t kBlankSize = 100;
  TestMessage first = message("TopicA", 0, "before the blank");
  TestMessage second = message("TopicA", 0, "after the blank");
  const std::int32_t first_size = first.record_size();
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(first_size + kBlankSize + second.record_size()));
  const auto encode = [&](const TestMessage& m, std::int64_t queue_offset, std::int64_t at) {
    const auto view = m.view();
    ASSERT_TRUE(v1::encode_record(view, {queue_offset, at, now_ms()},
                                  std::span(bytes).subspan(static_cast<std::size_t>(at),
                                                           static_cast<std::size_t>(v1::record_size(view))))
                    .is_ok());
  };
  encode(first, 0, 0);
  const std::uint8_t blank_header[] = {0, 0, 0, kBlankSize, 0xCB, 0xD4, 0x31, 0x94};
  std::copy(std::begin(blank_header), std::end(blank_header), bytes.begin() + first_size);
  const std::int64_t second_offset = first_size + kBlankSize;
  encode(second, 1, second_offset);

  const auto replicated = harness.store().append_replicated(0, bytes);
  ASSERT_TRUE(replicated.is_ok()) << replicated.to_string();
  EXPECT_EQ(harness.store().stats().commit_log_max_offset, static_cast<std::int64_t>(bytes.size()));
  ASSERT_TRUE(harness.wait_dispatched());
  const auto records = harness.read_all("TopicA", 0);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(decode(records[1])->commit_offset, second_offset);
  EXPECT_FALSE(harness.store().read_at(first_size).is_ok()) << "the blank is no record";
  EXPECT_TRUE(harness.store().read_at(second_offset).is_ok());
  // New appends continue after the copied records.
  const auto next = harness.append(message("TopicA", 0, "local"));
  ASSERT_TRUE(next.is_ok());
  EXPECT_EQ(next->commit_offset, static_cast<std::int64_t>(bytes.size()));
  EXPECT_EQ(next->queue_offset, 2);
}

TEST_F(MemoryStoreTest, CorruptReplicatedRecordsStoreNothing) {
  StoreHarness harness(kMemory);
  ASSERT_TRUE(harness.open().is_ok());
  TestMessage m = message("TopicA", 0, "payload");
  const auto view = m.view();
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(2 * v1::record_size(view)));
  const auto size = static_cast<std::size_t>(v1::record_size(view));
  ASSERT_TRUE(v1::encode_record(view, {0, 0, now_ms()}, std::span(bytes).first(size)).is_ok());
  ASSERT_TRUE(v1::encode_record(view, {1, static_cast<std::int64_t>(size), now_ms()},
                                std::span(bytes).subspan(size, size))
                  .is_ok());
  bytes[size + 90] ^= 0xFF;  // a body byte of the second record: its CRC no longer matches
  const auto refused = harness.store().append_replicated(0, bytes);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.code(), v1::StatusCode::kCorruption) << refused.to_string();
  EXPECT_EQ(harness.store().stats().commit_log_max_offset, 0);
}

}  // namespace
}  // namespace mqkit::testing::stores
