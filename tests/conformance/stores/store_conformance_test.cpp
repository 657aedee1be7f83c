// The behaviour every MessageStore plugin must have, run against each store through the real
// plugin loader and the kernel's dispatch pipeline (as a broker drives it). A store that is not
// built in this tree is skipped, not failed.
//
// Read semantics pinned here are RocketMQ's DefaultMessageStore.getMessage:
//   unknown topic or queue             kNoMatchedLogicQueue  next 0
//   queue known, nothing dispatched    kNoMessageInQueue     next 0
//   offset < min                       kOffsetTooSmall       next min
//   offset == max                      kOffsetOverflowOne    next offset
//   offset > max                       kOffsetOverflowBadly  next 0 when min is 0, else max
//   entries, none passing the filter   kNoMatchedMessage     next after the entries examined
//   records returned                   kFound                next after the last entry examined
// A read returns at least one record even when that record alone exceeds max_bytes. A queue is
// known once the store accepted a message for it, until its topic is deleted.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mqkit/plugin/v1/java_hash.hpp"
#include "mqkit/plugin/v1/runtime_figures.hpp"
#include "mqkit/plugin/v1/store_admin.hpp"
#include "store_test_support.hpp"

namespace mqkit::testing::stores {
namespace {

using v1::ReadStatus;
using v1::StatusCode;
using v1::TimeBoundary;

struct MemoryStore {
  static StoreKind kind() { return {"memory", false}; }
  static std::string name() { return "memory"; }
};
struct CommitLogStore {
  static StoreKind kind() { return {"commitlog", true}; }
  static std::string name() { return "commitlog"; }
};
// The commitlog store writing through its transient store pool (short commit intervals, and a
// pool of one 1 MiB buffer — the suite's file size — so the writer often waits for room).
struct CommitLogStoreWithPool {
  static StoreKind kind() {
    return {"commitlog", true,
            {{"transient_store_pool_enable", "true"},
             {"transient_store_pool_size", "1"},
             {"commit_interval_commit_log", "5ms"},
             {"commit_commit_log_thorough_interval", "10ms"}}};
  }
  static std::string name() { return "commitlog_pool"; }
};

template <typename Store>
class StoreConformance : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!StoreHarness::built(Store::kind())) {
      GTEST_SKIP() << "store plugin '" << Store::kind().plugin << "' is not built in this tree";
    }
    harness_ = std::make_unique<StoreHarness>(Store::kind());
    const auto opened = harness_->open();
    ASSERT_TRUE(opened.is_ok()) << opened.to_string();
  }

  v1::MessageStore& store() { return harness_->store(); }
  StoreHarness& harness() { return *harness_; }

  v1::AppendResult append(const TestMessage& m) { return append(std::vector<TestMessage>{m}); }
  v1::AppendResult append(const std::vector<TestMessage>& batch) {
    auto result = harness_->append(batch);
    EXPECT_TRUE(result.is_ok()) << result.status().to_string();
    return result.value_or(v1::AppendResult{});
  }
  // Appends one message per body to one queue, each in its own append.
  std::vector<v1::AppendResult> append_bodies(const std::string& topic, std::int32_t queue_id,
                                              const std::vector<std::string>& bodies) {
    std::vector<v1::AppendResult> results;
    for (const auto& body : bodies) results.push_back(append(message(topic, queue_id, body)));
    return results;
  }

  std::unique_ptr<StoreHarness> harness_;
};

using StoreKinds = ::testing::Types<MemoryStore, CommitLogStore, CommitLogStoreWithPool>;
class StoreNames {
 public:
  template <typename T>
  static std::string GetName(int) {
    return T::name();
  }
};
TYPED_TEST_SUITE(StoreConformance, StoreKinds, StoreNames);

std::vector<std::string> numbered(const std::string& prefix, int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::vector<std::string> bodies_of(const std::vector<v1::StoredSlice>& records) {
  std::vector<std::string> out;
  for (const auto& slice : records) {
    if (auto record = decode(slice)) out.emplace_back(text(record->body));
  }
  return out;
}

TYPED_TEST(StoreConformance, ItsPutLockClockReadsZeroWhenNoAppendIsUnderWay) {
  auto* clock = static_cast<v1::PutLockClock*>(this->store().extension(v1::kPutLockClockId));
  ASSERT_NE(clock, nullptr) << "the store offers no " << v1::kPutLockClockId;
  EXPECT_EQ(clock->held_ms(now_ms()), 0);
  this->append(message("TopicA", 0, "hello"));
  EXPECT_EQ(clock->held_ms(now_ms()), 0);
}

TYPED_TEST(StoreConformance, AppendReportsWhereTheMessageWent) {
  const std::int64_t log_end = this->store().stats().commit_log_max_offset;
  const std::int64_t before = now_ms();
  TestMessage first = message("TopicA", 0, "hello");
  first.tags("TagA").keys("k1");
  const auto a = this->append(first);
  const std::int64_t after = now_ms();
  EXPECT_EQ(a.commit_offset, log_end);
  EXPECT_EQ(a.bytes, first.record_size());
  EXPECT_EQ(a.queue_offset, 0);
  EXPECT_EQ(a.message_count, 1);
  EXPECT_GE(a.store_timestamp, before - 5000);
  EXPECT_LE(a.store_timestamp, after + 5000);
  EXPECT_FALSE(a.flush_timed_out);

  const auto b = this->append(message("TopicA", 0, "world"));
  EXPECT_EQ(b.commit_offset, a.commit_offset + a.bytes);
  EXPECT_EQ(b.queue_offset, 1);
  EXPECT_GE(b.store_timestamp, a.store_timestamp);
  EXPECT_EQ(this->store().stats().commit_log_max_offset, b.commit_offset + b.bytes);

  // Another queue counts its own offsets.
  EXPECT_EQ(this->append(message("TopicA", 1, "other queue")).queue_offset, 0);
  EXPECT_EQ(this->append(message("TopicB", 0, "other topic")).queue_offset, 0);
}

TYPED_TEST(StoreConformance, BatchGetsConsecutiveQueueOffsetsAndOneTimestamp) {
  this->append(message("TopicA", 0, "single"));
  std::vector<TestMessage> batch;
  for (int i = 0; i < 3; ++i) batch.push_back(message("TopicA", 0, "batch-" + std::to_string(i)));
  batch[1].keys("batch-key");
  const auto result = this->append(batch);
  std::int32_t bytes = 0;
  for (const auto& m : batch) bytes += m.record_size();
  EXPECT_EQ(result.queue_offset, 1);
  EXPECT_EQ(result.message_count, 3);
  EXPECT_EQ(result.bytes, bytes);
  EXPECT_EQ(this->append(message("TopicA", 0, "after")).queue_offset, 4);

  ASSERT_TRUE(this->harness().wait_dispatched());
  const auto page = this->harness().read("TopicA", 0, 1, 3);
  ASSERT_EQ(page.status, ReadStatus::kFound);
  ASSERT_EQ(page.records.size(), 3u);
  std::int64_t commit_offset = result.commit_offset;
  for (std::size_t i = 0; i < 3; ++i) {
    const auto record = decode(page.records[i]);
    ASSERT_TRUE(record);
    expect_record_of(*record, batch[i]);
    EXPECT_EQ(record->queue_offset, 1 + static_cast<std::int64_t>(i));
    EXPECT_EQ(record->commit_offset, commit_offset);
    EXPECT_EQ(record->store_timestamp, result.store_timestamp);
    EXPECT_EQ(page.queue_offsets[i], record->queue_offset);
    commit_offset += record->total_size;
  }
}

TYPED_TEST(StoreConformance, InvalidAppendsStoreNothing) {
  this->append(message("TopicA", 0, "valid"));
  const std::int64_t log_end = this->store().stats().commit_log_max_offset;
  const auto expect_invalid = [&](const std::vector<TestMessage>& batch, const char* what) {
    const auto result = this->harness().append(batch);
    ASSERT_FALSE(result.is_ok()) << what;
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << what << ": " << result.status().to_string();
  };
  expect_invalid({}, "empty batch");
  expect_invalid({message("TopicA", 0, "a"), message("TopicB", 0, "b")}, "batch mixing topics");
  expect_invalid({message("TopicA", 0, "a"), message("TopicA", 1, "b")}, "batch mixing queues");
  expect_invalid({message(std::string(128, 't'), 0, "a")}, "topic of 128 bytes");
  expect_invalid({message("TopicA", -1, "a")}, "negative queue id");
  TestMessage huge_properties = message("TopicA", 0, "a");
  huge_properties.property("big", std::string(40000, 'p'));
  expect_invalid({huge_properties}, "properties over 32767 bytes");

  EXPECT_EQ(this->store().stats().commit_log_max_offset, log_end);
  ASSERT_TRUE(this->harness().wait_dispatched());
  EXPECT_EQ(this->store().max_offset("TopicA", 0), 1);
  EXPECT_EQ(this->store().max_offset("TopicB", 0), 0);
}

TYPED_TEST(StoreConformance, ReadReturnsRecordsAsSent) {
  std::vector<TestMessage> sent;
  for (int i = 0; i < 5; ++i) {
    TestMessage m = message("TopicA", 3, "payload-" + std::to_string(i));
    m.tags(i % 2 == 0 ? "TagA" : "TagB").keys("key-" + std::to_string(i)).property("custom", "value");
    m.flag = 100 + i;
    m.reconsume_times = i;
    m.prepared_transaction_offset = 1000 * i;
    m.born_timestamp += i;
    sent.push_back(std::move(m));
  }
  sent[4].born_host.is_v6 = true;  // 16-byte address: the record grows by 12 bytes
  sent[4].born_host.ip = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  std::vector<v1::AppendResult> placed;
  for (const auto& m : sent) placed.push_back(this->append(m));
  ASSERT_TRUE(this->harness().wait_dispatched());

  const auto page = this->harness().read("TopicA", 3, 0);
  ASSERT_EQ(page.status, ReadStatus::kFound);
  ASSERT_EQ(page.records.size(), sent.size());
  EXPECT_EQ(page.queue_offsets, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(page.next_begin_offset, 5);
  EXPECT_EQ(page.min_offset, 0);
  EXPECT_EQ(page.max_offset, 5);
  std::int64_t total = 0;
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const auto record = decode(page.records[i]);
    ASSERT_TRUE(record);
    expect_record_of(*record, sent[i]);
    EXPECT_EQ(record->queue_offset, static_cast<std::int64_t>(i));
    EXPECT_EQ(record->commit_offset, placed[i].commit_offset);
    EXPECT_EQ(record->store_timestamp, placed[i].store_timestamp);
    EXPECT_EQ(record->total_size, placed[i].bytes);
    total += record->total_size;
  }
  EXPECT_EQ(page.total_bytes, total);
}

TYPED_TEST(StoreConformance, ReadHonoursMaxCount) {
  this->append_bodies("TopicA", 0, numbered("m", 10));
  ASSERT_TRUE(this->harness().wait_dispatched());
  const auto page = this->harness().read("TopicA", 0, 2, 3);
  ASSERT_EQ(page.status, ReadStatus::kFound);
  EXPECT_EQ(bodies_of(page.records), (std::vector<std::string>{"m2", "m3", "m4"}));
  EXPECT_EQ(page.queue_offsets, (std::vector<std::int64_t>{2, 3, 4}));
  EXPECT_EQ(page.next_begin_offset, 5);
}

TYPED_TEST(StoreConformance, ReadHonoursMaxBytesButAlwaysReturnsOneRecord) {
  const auto placed = this->append_bodies("TopicA", 0, numbered("m", 5));
  ASSERT_TRUE(this->harness().wait_dispatched());
  const std::int64_t size = placed[0].bytes;

  const auto two = this->harness().read("TopicA", 0, 0, 32, 2 * size + size / 2);
  ASSERT_EQ(two.status, ReadStatus::kFound);
  EXPECT_EQ(bodies_of(two.records), (std::vector<std::string>{"m0", "m1"}));
  EXPECT_EQ(two.next_begin_offset, 2);
  EXPECT_EQ(two.total_bytes, 2 * size);

  const auto one = this->harness().read("TopicA", 0, 3, 32, 1);
  ASSERT_EQ(one.status, ReadStatus::kFound);
  EXPECT_EQ(bodies_of(one.records), (std::vector<std::string>{"m3"}));
  EXPECT_EQ(one.next_begin_offset, 4);
}

TYPED_TEST(StoreConformance, TagFilterSkipsOtherTags) {
  const std::vector<std::string> tags = {"A", "B", "A", "C", "B", "", "A"};
  for (std::size_t i = 0; i < tags.size(); ++i) {
    TestMessage m = message("TopicA", 0, "m" + std::to_string(i));
    if (!tags[i].empty()) m.tags(tags[i]);
    this->append(m);
  }
  ASSERT_TRUE(this->harness().wait_dispatched());

  const std::int32_t only_a[] = {tag_code("A")};
  const auto a = this->harness().read("TopicA", 0, 0, 32, 1 << 20, only_a);
  ASSERT_EQ(a.status, ReadStatus::kFound);
  EXPECT_EQ(bodies_of(a.records), (std::vector<std::string>{"m0", "m2", "m6"}));
  EXPECT_EQ(a.queue_offsets, (std::vector<std::int64_t>{0, 2, 6}));
  EXPECT_EQ(a.next_begin_offset, 7);

  const std::int32_t b_or_c[] = {tag_code("B"), tag_code("C")};
  const auto bc = this->harness().read("TopicA", 0, 0, 32, 1 << 20, b_or_c);
  EXPECT_EQ(bodies_of(bc.records), (std::vector<std::string>{"m1", "m3", "m4"}));

  // With max_count 1 the read stops at the entry after its one match.
  const auto first_a = this->harness().read("TopicA", 0, 1, 1, 1 << 20, only_a);
  ASSERT_EQ(first_a.status, ReadStatus::kFound);
  EXPECT_EQ(bodies_of(first_a.records), (std::vector<std::string>{"m2"}));
  EXPECT_EQ(first_a.next_begin_offset, 3);

  const std::int32_t nothing[] = {tag_code("Z")};
  const auto none = this->harness().read("TopicA", 0, 0, 32, 1 << 20, nothing);
  EXPECT_EQ(none.status, ReadStatus::kNoMatchedMessage);
  EXPECT_TRUE(none.records.empty());
  EXPECT_EQ(none.next_begin_offset, 7) << "entries examined are skipped, so the consumer moves on";
  EXPECT_EQ(none.max_offset, 7);
}

TYPED_TEST(StoreConformance, ReadStatusEdges) {
  this->append_bodies("TopicA", 0, numbered("m", 3));
  ASSERT_TRUE(this->harness().wait_dispatched());

  const auto unknown_topic = this->harness().read("NoSuchTopic", 0, 0);
  EXPECT_EQ(unknown_topic.status, ReadStatus::kNoMatchedLogicQueue);
  EXPECT_EQ(unknown_topic.next_begin_offset, 0);
  EXPECT_TRUE(unknown_topic.records.empty());
  EXPECT_EQ(this->harness().read("TopicA", 7, 0).status, ReadStatus::kNoMatchedLogicQueue);

  const auto caught_up = this->harness().read("TopicA", 0, 3);
  EXPECT_EQ(caught_up.status, ReadStatus::kOffsetOverflowOne);
  EXPECT_EQ(caught_up.next_begin_offset, 3);
  EXPECT_EQ(caught_up.min_offset, 0);
  EXPECT_EQ(caught_up.max_offset, 3);
  EXPECT_TRUE(caught_up.records.empty());

  const auto beyond = this->harness().read("TopicA", 0, 10);
  EXPECT_EQ(beyond.status, ReadStatus::kOffsetOverflowBadly);
  EXPECT_EQ(beyond.next_begin_offset, 0) << "RocketMQ restarts a consumer from 0 when the queue still starts at 0";
  EXPECT_EQ(beyond.max_offset, 3);

  const auto below = this->harness().read("TopicA", 0, -1);
  EXPECT_EQ(below.status, ReadStatus::kOffsetTooSmall);
  EXPECT_EQ(below.next_begin_offset, 0);
  EXPECT_TRUE(below.records.empty());

  const auto last = this->harness().read("TopicA", 0, 2);
  ASSERT_EQ(last.status, ReadStatus::kFound);
  EXPECT_EQ(bodies_of(last.records), (std::vector<std::string>{"m2"}));
  EXPECT_EQ(last.next_begin_offset, 3);
}

TYPED_TEST(StoreConformance, QueueWithNothingDispatchedIsEmpty) {
  // A store of our own whose pipeline is not running yet: nothing appended is dispatched.
  this->harness_.reset();
  StoreHarness harness(TypeParam::kind());
  ASSERT_TRUE(harness.open(/*dispatch=*/false).is_ok());
  ASSERT_TRUE(harness.append(message("TopicA", 0, "pending")).is_ok());
  const auto empty = harness.read("TopicA", 0, 0);
  EXPECT_EQ(empty.status, ReadStatus::kNoMessageInQueue);
  EXPECT_EQ(empty.next_begin_offset, 0);
  EXPECT_EQ(empty.max_offset, 0);
  EXPECT_EQ(harness.store().max_offset("TopicA", 0), 0);

  harness.start_dispatch();
  ASSERT_TRUE(harness.wait_dispatched());
  const auto found = harness.read("TopicA", 0, 0);
  EXPECT_EQ(found.status, ReadStatus::kFound);
  EXPECT_EQ(bodies_of(found.records), (std::vector<std::string>{"pending"}));
}

TYPED_TEST(StoreConformance, MinAndMaxOffsets) {
  EXPECT_EQ(this->store().min_offset("TopicA", 0), 0);
  EXPECT_EQ(this->store().max_offset("TopicA", 0), 0);
  this->append_bodies("TopicA", 0, numbered("m", 4));
  this->append_bodies("TopicA", 1, numbered("n", 2));
  ASSERT_TRUE(this->harness().wait_dispatched());
  EXPECT_EQ(this->store().min_offset("TopicA", 0), 0);
  EXPECT_EQ(this->store().max_offset("TopicA", 0), 4);
  EXPECT_EQ(this->store().max_offset("TopicA", 1), 2);
  EXPECT_EQ(this->store().max_offset("TopicA", 2), 0);
  EXPECT_EQ(this->store().max_offset("NoSuchTopic", 0), 0);
}

TYPED_TEST(StoreConformance, CommitOffsetOfEachQueueOffset) {
  const auto placed = this->append_bodies("TopicA", 0, numbered("m", 3));
  ASSERT_TRUE(this->harness().wait_dispatched());
  for (std::size_t i = 0; i < placed.size(); ++i) {
    const auto offset = this->store().commit_offset_of("TopicA", 0, static_cast<std::int64_t>(i));
    ASSERT_TRUE(offset.is_ok()) << offset.status().to_string();
    EXPECT_EQ(*offset, placed[i].commit_offset);
  }
  EXPECT_FALSE(this->store().commit_offset_of("TopicA", 0, 3).is_ok());
  EXPECT_FALSE(this->store().commit_offset_of("TopicA", 0, -1).is_ok());
  EXPECT_FALSE(this->store().commit_offset_of("NoSuchTopic", 0, 0).is_ok());
}

TYPED_TEST(StoreConformance, ReadAtCommitOffset) {
  std::vector<TestMessage> sent = {message("TopicA", 0, "first"), message("TopicB", 2, "second")};
  sent[1].unique_key("U-2");
  std::vector<v1::AppendResult> placed;
  for (const auto& m : sent) placed.push_back(this->append(m));
  // Looking up by commit offset works before dispatch too (retries and transactions need it).
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const auto slice = this->store().read_at(placed[i].commit_offset);
    ASSERT_TRUE(slice.is_ok()) << slice.status().to_string();
    const auto record = decode(*slice);
    ASSERT_TRUE(record);
    expect_record_of(*record, sent[i]);
    EXPECT_EQ(record->commit_offset, placed[i].commit_offset);
  }
  const std::int64_t log_end = this->store().stats().commit_log_max_offset;
  EXPECT_FALSE(this->store().read_at(log_end).is_ok());
  EXPECT_FALSE(this->store().read_at(log_end + 4096).is_ok());
  EXPECT_FALSE(this->store().read_at(placed[0].commit_offset + 1).is_ok()) << "inside a record";
  EXPECT_FALSE(this->store().read_at(-1).is_ok());
}

TYPED_TEST(StoreConformance, OffsetByTimeFindsBoundaries) {
  // Three groups of two messages, each group stored in a later millisecond than the one before.
  std::vector<std::int64_t> stamps;
  for (int group = 0; group < 3; ++group) {
    for (int i = 0; i < 2; ++i) {
      stamps.push_back(this->append(message("TopicA", 0, "g" + std::to_string(group))).store_timestamp);
    }
    wait_for_clock_after(stamps.back() + 1);
  }
  ASSERT_TRUE(this->harness().wait_dispatched());
  ASSERT_TRUE(std::is_sorted(stamps.begin(), stamps.end()));
  const auto max = static_cast<std::int64_t>(stamps.size());

  std::set<std::int64_t> probes = {stamps.front() - 1000, stamps.back() + 1000};
  for (const std::int64_t t : stamps) probes.insert({t - 1, t, t + 1});
  for (const std::int64_t probe : probes) {
    // kLower: the first message stored at or after the time, max offset when none.
    const auto lower = std::lower_bound(stamps.begin(), stamps.end(), probe) - stamps.begin();
    // kUpper: the last message stored at or before it, 0 (the min offset) when none.
    const auto upper_end = std::upper_bound(stamps.begin(), stamps.end(), probe) - stamps.begin();
    const std::int64_t upper = upper_end == 0 ? 0 : upper_end - 1;
    const auto found_lower = this->store().offset_by_time("TopicA", 0, probe, TimeBoundary::kLower);
    const auto found_upper = this->store().offset_by_time("TopicA", 0, probe, TimeBoundary::kUpper);
    ASSERT_TRUE(found_lower.is_ok() && found_upper.is_ok());
    EXPECT_EQ(*found_lower, std::min<std::int64_t>(lower, max)) << "kLower at " << probe - stamps.front();
    EXPECT_EQ(*found_upper, upper) << "kUpper at " << probe - stamps.front();
  }
}

TYPED_TEST(StoreConformance, EarliestMessageTime) {
  EXPECT_FALSE(this->store().earliest_message_time("TopicA", 0).is_ok()) << "unknown queue";
  const auto placed = this->append_bodies("TopicA", 0, numbered("m", 2));
  ASSERT_TRUE(this->harness().wait_dispatched());
  const auto earliest = this->store().earliest_message_time("TopicA", 0);
  ASSERT_TRUE(earliest.is_ok()) << earliest.status().to_string();
  EXPECT_EQ(*earliest, placed[0].store_timestamp);
}

TYPED_TEST(StoreConformance, QueryByKey) {
  std::vector<TestMessage> sent = {
      message("TopicA", 0, "m0"), message("TopicA", 1, "m1"), message("TopicB", 0, "m2"),
      message("TopicA", 0, "m3"), message("TopicA", 2, "m4"),
  };
  sent[0].keys("order-1 user-7").unique_key("U0");
  sent[1].keys("order-2  user-7").unique_key("U1");  // two spaces: empty keys are skipped
  sent[2].keys("user-7").unique_key("U2");
  sent[3].keys("order-10");
  sent[4].keys("user-7");
  std::vector<v1::AppendResult> placed;
  for (std::size_t i = 0; i < sent.size(); ++i) {
    placed.push_back(this->append(sent[i]));
    if (i == 1) wait_for_clock_after(placed.back().store_timestamp);  // m2.. are stored later than m0, m1
  }
  ASSERT_TRUE(this->harness().wait_dispatched());

  const auto query = [&](std::string_view topic, std::string_view key, std::int32_t max_count = 32,
                         std::int64_t begin = 0, std::int64_t end = std::numeric_limits<std::int64_t>::max()) {
    auto result = this->store().query_by_key(topic, key, max_count, begin, end);
    EXPECT_TRUE(result.is_ok()) << result.status().to_string();
    return result.is_ok() ? bodies_of(result->records) : std::vector<std::string>{};
  };
  using Bodies = std::vector<std::string>;
  EXPECT_EQ(query("TopicA", "user-7"), (Bodies{"m4", "m1", "m0"})) << "newest first, TopicB's m2 left out";
  EXPECT_EQ(query("TopicA", "user-7", 2), (Bodies{"m4", "m1"}));
  EXPECT_EQ(query("TopicA", "order-1"), (Bodies{"m0"})) << "whole keys only";
  EXPECT_EQ(query("TopicA", "U1"), (Bodies{"m1"})) << "UNIQ_KEY";
  EXPECT_EQ(query("TopicB", "user-7"), (Bodies{"m2"}));
  EXPECT_TRUE(query("TopicA", "nobody").empty());
  EXPECT_TRUE(query("NoSuchTopic", "user-7").empty());

  // Time range, inclusive, in milliseconds.
  EXPECT_TRUE(query("TopicA", "user-7", 32, placed[4].store_timestamp + 1).empty());
  EXPECT_TRUE(query("TopicA", "user-7", 32, 0, placed[0].store_timestamp - 1).empty());
  EXPECT_EQ(query("TopicA", "user-7", 32, 0, placed[1].store_timestamp), (Bodies{"m1", "m0"}));
  EXPECT_EQ(query("TopicA", "user-7", 32, placed[2].store_timestamp), (Bodies{"m4"}));

  const auto result = this->store().query_by_key("TopicA", "user-7", 32, 0, std::numeric_limits<std::int64_t>::max());
  ASSERT_TRUE(result.is_ok());
  EXPECT_GE(result->index_last_update_commit_offset, placed[4].commit_offset);
  EXPECT_GE(result->index_last_update_timestamp, placed[4].store_timestamp);
}

TYPED_TEST(StoreConformance, DeleteTopicForgetsItsQueues) {
  this->append_bodies("TopicA", 0, numbered("a", 3));
  this->append_bodies("TopicA", 1, numbered("b", 2));
  this->append_bodies("TopicB", 0, numbered("c", 2));
  ASSERT_TRUE(this->harness().wait_dispatched());

  const auto deleted = this->store().delete_topic("TopicA");
  ASSERT_TRUE(deleted.is_ok()) << deleted.to_string();
  for (const std::int32_t queue : {0, 1}) {
    EXPECT_EQ(this->harness().read("TopicA", queue, 0).status, ReadStatus::kNoMatchedLogicQueue);
    EXPECT_EQ(this->store().max_offset("TopicA", queue), 0);
    EXPECT_EQ(this->store().min_offset("TopicA", queue), 0);
  }
  EXPECT_EQ(bodies_of(this->harness().read_all("TopicB", 0)), (std::vector<std::string>{"c0", "c1"}));

  // The topic can be created again and starts from queue offset 0.
  EXPECT_EQ(this->append(message("TopicA", 0, "again")).queue_offset, 0);
  ASSERT_TRUE(this->harness().wait_dispatched());
  EXPECT_EQ(bodies_of(this->harness().read_all("TopicA", 0)), (std::vector<std::string>{"again"}));
  EXPECT_EQ(this->store().max_offset("TopicA", 0), 1);
}

TYPED_TEST(StoreConformance, StoreAdminListsQueuesAndTheirUnits) {
  auto* admin = static_cast<v1::StoreAdmin*>(this->store().extension(v1::kStoreAdminId));
  ASSERT_NE(admin, nullptr) << "the store offers no " << v1::kStoreAdminId;
  const auto written = this->append_bodies("TopicA", 1, numbered("a", 4));
  TestMessage tagged = message("TopicB", 0, "b");
  tagged.tags("TagB");
  this->append(tagged);
  ASSERT_TRUE(this->harness().wait_dispatched());

  std::set<std::pair<std::string, std::int32_t>> queues;
  const std::vector<v1::QueueRef> listed = admin->queues().value();
  for (const auto& queue : listed) queues.emplace(queue.topic, queue.queue_id);
  EXPECT_EQ(queues, (std::set<std::pair<std::string, std::int32_t>>{{"TopicA", 1}, {"TopicB", 0}}));

  const auto units = admin->queue_units("TopicA", 1, 1, 2).value();
  EXPECT_EQ(units.min_offset, 0);
  EXPECT_EQ(units.max_offset, 4);
  ASSERT_EQ(units.units.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(units.units[i].queue_offset, static_cast<std::int64_t>(i) + 1);
    EXPECT_EQ(units.units[i].commit_offset, written[i + 1].commit_offset);
    EXPECT_EQ(units.units[i].size, written[i + 1].bytes);
  }
  EXPECT_EQ(admin->queue_units("TopicA", 1, 3, 100).value().units.size(), 1u) << "stops at the max offset";
  EXPECT_TRUE(admin->queue_units("TopicA", 1, 9, 5).value().units.empty());
  EXPECT_EQ(admin->queue_units("TopicB", 0, 0, 1).value().units.at(0).tags_code, v1::java_string_hash("TagB"));
  EXPECT_EQ(admin->queue_units("TopicA", 0, 0, 1).status().code(), v1::StatusCode::kNotFound);

  // Every message is still there: no queue is expired, and one never written is not either.
  EXPECT_FALSE(admin->drop_expired_queue("TopicA", 1).value());
  EXPECT_FALSE(admin->drop_expired_queue("TopicA", 7).value());
  EXPECT_EQ(this->store().max_offset("TopicA", 1), 4);
}

// A request's index may be anything: no arithmetic overflow, just no units.
TYPED_TEST(StoreConformance, StoreAdminTakesAnyIndex) {
  auto* admin = static_cast<v1::StoreAdmin*>(this->store().extension(v1::kStoreAdminId));
  ASSERT_NE(admin, nullptr);
  this->append_bodies("TopicA", 0, numbered("a", 2));
  ASSERT_TRUE(this->harness().wait_dispatched());
  EXPECT_TRUE(admin->queue_units("TopicA", 0, std::numeric_limits<std::int64_t>::max(), 10000).value().units.empty());
  // Counted from the index, as RocketMQ counts: 10,000 units from far below 0 reach none.
  EXPECT_TRUE(admin->queue_units("TopicA", 0, std::numeric_limits<std::int64_t>::min(), 10000).value().units.empty());
  EXPECT_EQ(admin->queue_units("TopicA", 0, -1, 3).value().units.size(), 2u);
}

TYPED_TEST(StoreConformance, MetadataRoundTrip) {
  const auto missing = this->store().load_metadata("topics.json");
  ASSERT_TRUE(missing.is_ok()) << missing.status().to_string();
  EXPECT_FALSE(missing->has_value());

  const std::string topics = R"({"topicConfigTable":{"TopicA":{"readQueueNums":8}}})";
  ASSERT_TRUE(this->store().save_metadata("topics.json", topics).is_ok());
  ASSERT_TRUE(this->store().save_metadata("consumerOffset.json", "{}").is_ok());
  ASSERT_TRUE(this->store().save_metadata("empty.json", "").is_ok());
  EXPECT_EQ(this->store().load_metadata("topics.json").value(), std::optional<std::string>(topics));
  EXPECT_EQ(this->store().load_metadata("consumerOffset.json").value(), std::optional<std::string>("{}"));
  EXPECT_EQ(this->store().load_metadata("empty.json").value(), std::optional<std::string>(""));

  ASSERT_TRUE(this->store().save_metadata("topics.json", "{}").is_ok());
  EXPECT_EQ(this->store().load_metadata("topics.json").value(), std::optional<std::string>("{}"));
}

TYPED_TEST(StoreConformance, ManyTopicsAndQueuesInterleaved) {
  constexpr int kTopics = 6;
  constexpr int kQueues = 4;
  constexpr int kRounds = 5;
  for (int round = 0; round < kRounds; ++round) {
    for (int t = 0; t < kTopics; ++t) {
      for (int q = 0; q < kQueues; ++q) {
        const std::string topic = "Topic" + std::to_string(t);
        const auto placed = this->append(message(topic, q, topic + "/" + std::to_string(q) + "/" + std::to_string(round)));
        EXPECT_EQ(placed.queue_offset, round);
      }
    }
  }
  ASSERT_TRUE(this->harness().wait_dispatched());
  for (int t = 0; t < kTopics; ++t) {
    for (int q = 0; q < kQueues; ++q) {
      const std::string topic = "Topic" + std::to_string(t);
      EXPECT_EQ(this->store().max_offset(topic, q), kRounds);
      const auto records = this->harness().read_all(topic, q);
      ASSERT_EQ(records.size(), static_cast<std::size_t>(kRounds));
      for (int round = 0; round < kRounds; ++round) {
        const auto record = decode(records[static_cast<std::size_t>(round)]);
        ASSERT_TRUE(record);
        EXPECT_EQ(record->topic, topic);
        EXPECT_EQ(record->queue_id, q);
        EXPECT_EQ(record->queue_offset, round);
        EXPECT_EQ(text(record->body), topic + "/" + std::to_string(q) + "/" + std::to_string(round));
      }
    }
  }
}

TYPED_TEST(StoreConformance, ConcurrentAppendsKeepQueueOffsetsContiguous) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 150;
  constexpr int kQueues = 3;
  std::vector<std::vector<v1::AppendResult>> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const int queue = (t + i) % kQueues;  // every queue gets writes from every thread
        auto result = this->harness().append(message("Busy", queue, std::to_string(t) + ":" + std::to_string(i)));
        EXPECT_TRUE(result.is_ok()) << result.status().to_string();
        if (result.is_ok()) results[static_cast<std::size_t>(t)].push_back(*result);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_TRUE(this->harness().wait_dispatched());

  std::set<std::string> all_bodies;
  for (int q = 0; q < kQueues; ++q) {
    const auto records = this->harness().read_all("Busy", q);
    EXPECT_EQ(this->store().max_offset("Busy", q), static_cast<std::int64_t>(records.size()));
    std::int64_t previous_commit = -1;
    for (std::size_t i = 0; i < records.size(); ++i) {
      const auto record = decode(records[i]);
      ASSERT_TRUE(record);
      EXPECT_EQ(record->queue_offset, static_cast<std::int64_t>(i)) << "queue " << q;
      EXPECT_GT(record->commit_offset, previous_commit) << "queue order follows commit log order";
      previous_commit = record->commit_offset;
      EXPECT_TRUE(all_bodies.emplace(text(record->body)).second) << "duplicate " << text(record->body);
    }
  }
  EXPECT_EQ(all_bodies.size(), static_cast<std::size_t>(kThreads * kPerThread));
  std::set<std::int64_t> commit_offsets;
  for (const auto& per_thread : results) {
    for (const auto& r : per_thread) EXPECT_TRUE(commit_offsets.insert(r.commit_offset).second);
  }
}

TYPED_TEST(StoreConformance, PreparedTransactionMessagesStayOutOfQueues) {
  TestMessage prepared = message("TopicT", 0, "half");
  prepared.sys_flag = v1::sys_flag::kTransactionPrepared;
  prepared.property(std::string(v1::property::kTransactionPrepared), "true");
  const auto half = this->append(prepared);
  EXPECT_EQ(half.queue_offset, 0);
  EXPECT_EQ(this->append(message("TopicT", 0, "plain")).queue_offset, 0);
  TestMessage committed = message("TopicT", 0, "committed");
  committed.sys_flag = v1::sys_flag::kTransactionCommit;
  EXPECT_EQ(this->append(committed).queue_offset, 1);
  ASSERT_TRUE(this->harness().wait_dispatched());

  EXPECT_EQ(this->store().max_offset("TopicT", 0), 2);
  EXPECT_EQ(bodies_of(this->harness().read_all("TopicT", 0)), (std::vector<std::string>{"plain", "committed"}));
  const auto by_offset = this->store().read_at(half.commit_offset);
  ASSERT_TRUE(by_offset.is_ok()) << "the half message is still found by commit offset";
  EXPECT_EQ(bodies_of({*by_offset}), (std::vector<std::string>{"half"}));
}

TYPED_TEST(StoreConformance, ReplicatedAppendCopiesRecordsByteForByte) {
  this->append_bodies("TopicA", 0, numbered("m", 3));
  this->append_bodies("TopicA", 1, numbered("n", 2));
  ASSERT_TRUE(this->harness().wait_dispatched());
  const std::int64_t log_end = this->store().stats().commit_log_max_offset;
  std::vector<std::uint8_t> copied;
  for (std::int64_t offset = 0; offset < log_end;) {
    const auto chunk = this->store().read_for_dispatch(offset, 1 << 20);
    ASSERT_TRUE(chunk.is_ok()) << chunk.status().to_string();
    ASSERT_EQ(chunk->start_offset, offset) << "a small log has no padding to skip";
    ASSERT_GT(chunk->next_offset, offset);
    copied.insert(copied.end(), chunk->bytes.bytes.begin(), chunk->bytes.bytes.end());
    offset = chunk->next_offset;
  }

  StoreHarness slave(TypeParam::kind());
  ASSERT_TRUE(slave.open().is_ok());
  EXPECT_FALSE(slave.store().append_replicated(1, copied).is_ok()) << "must start at the slave's log end";
  const auto replicated = slave.store().append_replicated(0, copied);
  ASSERT_TRUE(replicated.is_ok()) << replicated.to_string();
  EXPECT_EQ(slave.store().stats().commit_log_max_offset, log_end);
  ASSERT_TRUE(slave.wait_dispatched());
  for (const std::int32_t queue : {0, 1}) {
    const auto master_records = this->harness().read_all("TopicA", queue);
    const auto slave_records = slave.read_all("TopicA", queue);
    ASSERT_EQ(slave_records.size(), master_records.size());
    for (std::size_t i = 0; i < master_records.size(); ++i) {
      EXPECT_TRUE(std::ranges::equal(slave_records[i].bytes, master_records[i].bytes));
    }
  }
  // Appends on the copy continue the copied queues.
  EXPECT_EQ(slave.append(message("TopicA", 0, "m3")).value().queue_offset, 3);
}

TYPED_TEST(StoreConformance, AnEmptyStoreTakesAReplicatedLogStartingAtAFileBoundary) {
  // A master starts an empty slave at the beginning of its last commit log file: records there
  // carry their own commit and queue offsets, both far from 0.
  constexpr std::int64_t kStart = 1 << 20;  // a file boundary of the suite's commit log files
  std::vector<std::uint8_t> copied;
  std::int64_t offset = kStart;
  for (int i = 0; i < 3; ++i) {
    const TestMessage m = message("TopicA", 0, "late-" + std::to_string(i));
    const auto view = m.view();
    const auto size = static_cast<std::size_t>(v1::record_size(view));
    copied.resize(copied.size() + size);
    const v1::RecordPlacement placement{.queue_offset = 40 + i, .commit_offset = offset, .store_timestamp = now_ms()};
    ASSERT_TRUE(v1::encode_record(view, placement, std::span(copied).last(size)).is_ok());
    offset += static_cast<std::int64_t>(size);
  }
  const auto replicated = this->store().append_replicated(kStart, copied);
  ASSERT_TRUE(replicated.is_ok()) << replicated.to_string();
  EXPECT_EQ(this->store().stats().commit_log_min_offset, kStart);
  EXPECT_EQ(this->store().stats().commit_log_max_offset, offset);
  ASSERT_TRUE(this->harness().wait_dispatched());
  // The queue starts where the records say.
  EXPECT_EQ(this->store().min_offset("TopicA", 0), 40);
  EXPECT_EQ(this->store().max_offset("TopicA", 0), 43);
  EXPECT_EQ(bodies_of(this->harness().read_all("TopicA", 0)), (std::vector<std::string>{"late-0", "late-1", "late-2"}));
  EXPECT_EQ(this->store().read_at(kStart).is_ok(), true);
  // From now on a copy must continue the log, and local appends continue the queue.
  EXPECT_FALSE(this->store().append_replicated(2 * kStart, copied).is_ok());
  EXPECT_EQ(this->append(message("TopicA", 0, "next")).queue_offset, 43);
  ASSERT_TRUE(this->harness().wait_dispatched());
  if (!TypeParam::kind().persists) return;
  // A log that does not start at 0 recovers as it was.
  this->harness().close();
  const auto reopened = this->harness().open();
  ASSERT_TRUE(reopened.is_ok()) << reopened.to_string();
  ASSERT_TRUE(this->harness().wait_dispatched());
  EXPECT_EQ(this->store().stats().commit_log_min_offset, kStart);
  EXPECT_EQ(this->store().min_offset("TopicA", 0), 40);
  EXPECT_EQ(this->store().max_offset("TopicA", 0), 44);
  EXPECT_EQ(this->append(message("TopicA", 0, "after-restart")).queue_offset, 44);
}

TYPED_TEST(StoreConformance, SlicesOutliveTheStore) {
  this->append(message("TopicA", 0, "kept"));
  ASSERT_TRUE(this->harness().wait_dispatched());
  auto page = this->harness().read("TopicA", 0, 0);
  ASSERT_EQ(page.records.size(), 1u);
  this->harness().close();  // the store object is gone; the slice keeps its bytes alive
  EXPECT_EQ(bodies_of(page.records), (std::vector<std::string>{"kept"}));
}

TYPED_TEST(StoreConformance, AppendAfterShutdownIsRefused) {
  this->store().shutdown();
  const auto result = this->harness().append(message("TopicA", 0, "late"));
  ASSERT_FALSE(result.is_ok());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable) << result.status().to_string();
}

TYPED_TEST(StoreConformance, RestartKeepsMessagesIndexesAndMetadata) {
  if (!TypeParam::kind().persists) {
    GTEST_SKIP() << "'" << TypeParam::kind().plugin << "' keeps nothing across a restart by design";
  }
  std::vector<TestMessage> sent;
  for (int i = 0; i < 6; ++i) {
    sent.push_back(message("TopicA", i % 2, "m" + std::to_string(i)));
    sent.back().keys("key-" + std::to_string(i));
  }
  for (const auto& m : sent) this->append(m);
  ASSERT_TRUE(this->store().save_metadata("topics.json", "{\"v\":1}").is_ok());
  ASSERT_TRUE(this->harness().wait_dispatched());
  const std::int64_t log_end = this->store().stats().commit_log_max_offset;
  const auto queue0 = bodies_of(this->harness().read_all("TopicA", 0));

  this->harness().close();
  const auto reopened = this->harness().open();
  ASSERT_TRUE(reopened.is_ok()) << reopened.to_string();
  EXPECT_EQ(this->harness().recovery().commit_log_max_offset, log_end);
  EXPECT_EQ(this->store().stats().commit_log_max_offset, log_end);
  ASSERT_TRUE(this->harness().wait_dispatched());

  EXPECT_EQ(this->store().max_offset("TopicA", 0), 3);
  EXPECT_EQ(this->store().max_offset("TopicA", 1), 3);
  EXPECT_EQ(bodies_of(this->harness().read_all("TopicA", 0)), queue0);
  const auto found = this->store().query_by_key("TopicA", "key-3", 32, 0, std::numeric_limits<std::int64_t>::max());
  ASSERT_TRUE(found.is_ok());
  EXPECT_EQ(bodies_of(found->records), (std::vector<std::string>{"m3"}));
  EXPECT_EQ(this->store().load_metadata("topics.json").value(), std::optional<std::string>("{\"v\":1}"));
  EXPECT_EQ(this->append(message("TopicA", 0, "m6")).queue_offset, 3);
}

}  // namespace
}  // namespace mqkit::testing::stores
