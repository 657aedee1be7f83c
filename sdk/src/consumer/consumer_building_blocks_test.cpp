// Layer-1 consumer parts without a broker: config, subscriptions, process queues and the local
// offsets file.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "mqkit/client/task_pool.hpp"
#include "mqkit/client/consumer_config.hpp"
#include "mqkit/client/offset_store.hpp"
#include "mqkit/client/process_queue.hpp"
#include "mqkit/client/subscription.hpp"
#include "mqkit/kernel/bootstrap.hpp"

namespace mqkit::client {
namespace {

namespace fs = std::filesystem;

MessageExt message_at(std::int64_t offset, std::string body = "x") {
  MessageExt m;
  m.set_topic("T");
  m.set_body(std::move(body));
  m.queue_offset = offset;
  return m;
}

TEST(ConsumerConfigTest, DefaultsAreRocketMqsAndGroupIsRequired) {
  ConsumerConfig config;
  config.client.namesrv_addresses = {"127.0.0.1:9876"};
  EXPECT_EQ(config.pull_batch_size, 32);
  EXPECT_EQ(config.consume_message_batch_max_size, 1);
  EXPECT_EQ(config.pull_threshold_for_queue, 1000);
  EXPECT_EQ(config.pull_threshold_size_for_queue, 100u * 1024 * 1024);
  EXPECT_EQ(config.effective_max_reconsume_times(false), 16);
  EXPECT_EQ(config.effective_max_reconsume_times(true), 0x7fffffff);
  const Status empty = config.validate();
  EXPECT_EQ(empty.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(empty.message().find("consumer group is empty"), std::string::npos);
  config.group = "bad group";
  EXPECT_EQ(config.validate().code(), StatusCode::kInvalidArgument);
  config.group = "good_group";
  EXPECT_TRUE(config.validate().is_ok()) << config.validate().to_string();
  config.consumer_timeout_when_suspend = config.broker_suspend_max_time;
  EXPECT_FALSE(config.validate().is_ok());
  config.consumer_timeout_when_suspend = std::chrono::milliseconds(30000);
  config.lock_interval = std::chrono::milliseconds(30000);  // a lock would lapse before its renewal
  EXPECT_NE(config.validate().message().find("lock_interval"), std::string::npos);
}

Result<ConsumerConfig> load(std::vector<std::string> overrides) {
  kernel::CommandLine command_line;
  command_line.config_file = MQKIT_SOURCE_DIR "/etc/client.toml";
  command_line.overrides = {"kernel.plugin_dirs=" MQKIT_PLUGIN_DIR};
  command_line.overrides.insert(command_line.overrides.end(), overrides.begin(), overrides.end());
  MQKIT_ASSIGN_OR_RETURN(auto boot, kernel::Bootstrap::create(command_line));
  MQKIT_ASSIGN_OR_RETURN(auto config, load_consumer_config(*boot));
  MQKIT_RETURN_IF_ERROR(boot->finish_validation());
  return config;
}

TEST(ConsumerConfigTest, EtcClientTomlLoadsWithOverrides) {
  auto config = load({"consumer.group=g1", "consumer.message_model=BROADCASTING", "consumer.pull_batch_size=7",
                      "consumer.consume_from_where=CONSUME_FROM_TIMESTAMP", "consumer.consume_timestamp=20250101000000",
                      "consumer.broker_suspend_max_time=2s", "consumer.offset_store_dir=/tmp/x",
                      "consumer.topic_metadata_check_interval=3s"});
  ASSERT_TRUE(config.is_ok()) << config.status().to_string();
  EXPECT_EQ(config->group, "g1");
  EXPECT_EQ(config->message_model, MessageModel::kBroadcasting);
  EXPECT_EQ(config->consume_from_where, ConsumeFromWhere::kTimestamp);
  EXPECT_EQ(config->consume_timestamp, "20250101000000");
  EXPECT_EQ(config->pull_batch_size, 7);
  EXPECT_EQ(config->broker_suspend_max_time, std::chrono::milliseconds(2000));
  EXPECT_EQ(config->offset_store_dir, fs::path("/tmp/x"));
  EXPECT_EQ(config->topic_metadata_check_interval, std::chrono::milliseconds(3000));
  EXPECT_EQ(config->client.allocator.name, "AllocateMessageQueueAveragely");
  const Status bad = load({"consumer.message_model=EVERYONE"}).status();
  EXPECT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("message_model"), std::string::npos) << bad.to_string();
  EXPECT_FALSE(load({"consumer.pull_batch_size=0"}).is_ok());
  EXPECT_FALSE(load({"consumer.topic_metadata_check_interval=0s"}).is_ok());
}

TEST(ConsumerConfigTest, ConsumeTimeoutIsInMinutesUnderEitherSpelling) {
  auto defaults = load({"consumer.group=g1"});
  ASSERT_TRUE(defaults.is_ok()) << defaults.status().to_string();
  EXPECT_EQ(defaults->consume_timeout, std::chrono::minutes(15));
  auto camel = load({"consumer.group=g1", "consumer.consumeTimeout=30"});
  ASSERT_TRUE(camel.is_ok()) << camel.status().to_string();
  EXPECT_EQ(camel->consume_timeout, std::chrono::minutes(30));
  const Status zero = load({"consumer.group=g1", "consumer.consume_timeout=0"}).status();
  EXPECT_NE(zero.message().find("consume_timeout"), std::string::npos) << zero.to_string();
  EXPECT_FALSE(load({"consumer.group=g1", "consumer.consume_timeout=1441"}).is_ok());
  ConsumerConfig config;
  config.group = "g1";
  config.client.namesrv_addresses = {"127.0.0.1:9876"};
  ASSERT_TRUE(config.validate().is_ok()) << config.validate().to_string();
  config.consume_timeout = std::chrono::milliseconds(0);
  EXPECT_NE(config.validate().message().find("consume_timeout"), std::string::npos);
}

TEST(ConsumerConfigTest, ConsumeTimestampIsYyyyMmDdHhMmSsLocalTime) {
  auto parsed = parse_consume_timestamp("20240131235959");
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().to_string();
  std::tm tm{};
  tm.tm_year = 124, tm.tm_mon = 0, tm.tm_mday = 31, tm.tm_hour = 23, tm.tm_min = 59, tm.tm_sec = 59, tm.tm_isdst = -1;
  EXPECT_EQ(*parsed, static_cast<std::int64_t>(std::mktime(&tm)) * 1000);
  for (const char* bad : {"2024013123595", "2024-01-31 23:5", "20241331000000", "20240230000000"}) {
    EXPECT_EQ(parse_consume_timestamp(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
  auto half_hour_ago = parse_consume_timestamp("");
  ASSERT_TRUE(half_hour_ago.is_ok());
  EXPECT_NEAR(static_cast<double>(now - *half_hour_ago), 1'800'000.0, 5000.0);
}

TEST(ConsumerConfigTest, LocalOffsetsFileFollowsRocketMqsLayout) {
  ConsumerConfig config;
  config.group = "g";
  config.offset_store_dir = "/var/offsets";
  EXPECT_EQ(config.local_offsets_file("10.0.0.1@x"), fs::path("/var/offsets/10.0.0.1@x/g/offsets.json"));
}

TEST(SubscriptionTest, SqlExpressionsAreCheckedAndLeftToTheBroker) {
  auto sql = make_subscription("T", MessageSelector::by_sql("price > 10 AND TAGS IN ('A', 'B')"));
  ASSERT_TRUE(sql.is_ok()) << sql.status().to_string();
  EXPECT_EQ(sql->expression_type, "SQL92");
  EXPECT_EQ(sql->sub_string, "price > 10 AND TAGS IN ('A', 'B')");
  EXPECT_TRUE(sql->tags_set.empty());
  EXPECT_TRUE(sql->code_set.empty());
  EXPECT_GT(sql->sub_version, 0);
  EXPECT_TRUE(tag_matches(*sql, "C"));  // the broker evaluated the expression

  auto bad = make_subscription("T", MessageSelector::by_sql("price >> 10"));
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("subscription of T: SQL92 expression 'price >> 10': "), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("at column 8"), std::string::npos) << bad.status().message();
  EXPECT_EQ(make_subscription("bad topic", MessageSelector::by_sql("a = 1")).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(SubscriptionTest, TagExpressionsAndClientSideMatching) {
  auto tags = make_subscription("T", "TagA || TagB");
  ASSERT_TRUE(tags.is_ok()) << tags.status().to_string();
  EXPECT_EQ(tags->tags_set, (std::set<std::string>{"TagA", "TagB"}));
  EXPECT_EQ(tags->code_set, (std::set<std::int32_t>{2598919, 2598920}));  // Java "TagA".hashCode() ...
  EXPECT_TRUE(tag_matches(*tags, "TagA"));
  EXPECT_FALSE(tag_matches(*tags, "TagC"));
  EXPECT_FALSE(tag_matches(*tags, ""));
  auto all = make_subscription("T", "*");
  ASSERT_TRUE(all.is_ok());
  EXPECT_TRUE(tag_matches(*all, "anything"));
  EXPECT_TRUE(tag_matches(*all, ""));
  EXPECT_EQ(make_subscription("T", "||").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(make_subscription("bad topic", "*").status().code(), StatusCode::kInvalidArgument);
  auto by_tag = make_subscription("T", MessageSelector::by_tag("TagA || TagB"));
  ASSERT_TRUE(by_tag.is_ok());
  EXPECT_EQ(by_tag->tags_set, tags->tags_set);
  EXPECT_EQ(retry_subscription("g").topic, "%RETRY%g");
  EXPECT_EQ(retry_subscription("g").sub_string, "*");
}

TEST(ProcessQueueTest, CountsBytesAndCommitsTheSmallestUnconsumedOffset) {
  ProcessQueue queue;
  EXPECT_EQ(queue.remove({}), -1);
  EXPECT_TRUE(queue.put({message_at(10, "aa"), message_at(11, "bbb"), message_at(12, "c")}));
  queue.put({message_at(12, "c")});  // a duplicate is not counted twice
  EXPECT_EQ(queue.message_count(), 3u);
  EXPECT_EQ(queue.message_bytes(), 6u);
  EXPECT_EQ(queue.max_span(), 2);
  // Offset 11 consumed first: 10 is still pending, so 10 is what may be committed.
  EXPECT_EQ(queue.remove({message_at(11)}), 10);
  EXPECT_EQ(queue.message_bytes(), 3u);
  EXPECT_EQ(queue.remove({message_at(10)}), 12);
  EXPECT_EQ(queue.remove({message_at(12)}), 13);  // nothing left: one past the largest
  EXPECT_EQ(queue.message_count(), 0u);
  EXPECT_EQ(queue.message_bytes(), 0u);
}

TEST(ProcessQueueTest, OnlyAHeadWhoseListenerStartedLongAgoIsExpired) {
  using std::chrono::milliseconds;
  ProcessQueue queue;
  queue.put({message_at(5), message_at(6)});
  EXPECT_FALSE(queue.expired_head(milliseconds(0)).has_value());  // nothing is being consumed
  queue.mark_consume_started({message_at(6)});
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_FALSE(queue.expired_head(milliseconds(10)).has_value());  // 6 is not the head
  queue.mark_consume_started({message_at(5)});
  EXPECT_FALSE(queue.expired_head(milliseconds(10'000)).has_value());  // started just now
  std::this_thread::sleep_for(milliseconds(20));
  const auto head = queue.expired_head(milliseconds(10));
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->queue_offset, 5);
  EXPECT_EQ(queue.remove({*head}), 6);
  ASSERT_TRUE(queue.expired_head(milliseconds(10)).has_value());  // now 6 heads, started 40 ms ago
  EXPECT_EQ(queue.remove({message_at(6)}), 7);
  EXPECT_FALSE(queue.expired_head(milliseconds(0)).has_value());
}

TEST(ProcessQueueTest, OrderlyTakeCommitAndConsumeAgain) {
  ProcessQueue queue;
  EXPECT_TRUE(queue.put({message_at(0), message_at(1), message_at(2)}));
  EXPECT_FALSE(queue.put({message_at(3)}));  // a consumer is dispatched already
  auto first = queue.take_messages(2);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].queue_offset, 0);
  EXPECT_EQ(first[1].queue_offset, 1);
  EXPECT_EQ(queue.message_count(), 4u);  // consuming ones still count for flow control
  first[0].reconsume_times = 1;
  queue.make_messages_to_consume_again(first);
  auto again = queue.take_messages(2);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].queue_offset, 0);
  EXPECT_EQ(again[0].reconsume_times, 1);
  EXPECT_EQ(queue.commit(), 2);
  ASSERT_EQ(queue.take_messages(5).size(), 2u);
  EXPECT_EQ(queue.commit(), 4);
  EXPECT_TRUE(queue.take_messages(5).empty());  // the consumer stops ...
  EXPECT_TRUE(queue.put({message_at(4)}));      // ... and the next put dispatches one again
}

TEST(ProcessQueueTest, LockStateAndDrop) {
  ProcessQueue queue;
  EXPECT_FALSE(queue.lock_valid());
  const auto before = ProcessQueue::Clock::now();
  queue.set_locked(true);
  EXPECT_TRUE(queue.lock_valid());
  EXPECT_GE(queue.last_lock_time(), before);
  queue.mark_pulled();
  EXPECT_GE(queue.last_pull_time(), before);
  queue.set_locked(false);
  EXPECT_FALSE(queue.lock_valid());
  EXPECT_FALSE(queue.dropped());
  queue.put({message_at(1)});
  queue.set_dropped();
  queue.clear();
  EXPECT_TRUE(queue.dropped());
  EXPECT_EQ(queue.message_count(), 0u);
}

class LocalFileOffsetStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mqkit_offsets_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path file() const { return dir_ / "client" / "group" / "offsets.json"; }
  void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  fs::path dir_;
};

TEST_F(LocalFileOffsetStoreTest, AQueueRemovedFromTheCacheKeepsItsOffsetInTheFile) {
  const MessageQueue q0{"T", "broker-a", 0};
  const MessageQueue q1{"T", "broker-a", 1};
  {
    LocalFileOffsetStore store(file());
    ASSERT_TRUE(store.load().is_ok());
    store.update(q0, 4, false);
    store.update(q1, 6, false);
    // Shutdown releases queue by queue: persist, then forget.
    ASSERT_TRUE(store.persist(q0).is_ok());
    store.remove(q0);
    ASSERT_TRUE(store.persist(q1).is_ok());
    store.remove(q1);
  }
  LocalFileOffsetStore reloaded(file());
  ASSERT_TRUE(reloaded.load().is_ok());
  EXPECT_EQ(*reloaded.read(q0, ReadOffsetType::kStore), 4);
  EXPECT_EQ(*reloaded.read(q1, ReadOffsetType::kStore), 6);
}

TEST_F(LocalFileOffsetStoreTest, MissingFileStartsFreshAndOffsetsSurviveAReload) {
  const MessageQueue q0{"T", "broker-a", 0};
  const MessageQueue q1{"T", "broker-b", 1};
  {
    LocalFileOffsetStore store(file());
    ASSERT_TRUE(store.load().is_ok());
    EXPECT_EQ(*store.read(q0, ReadOffsetType::kMemoryThenStore), -1);
    store.update(q0, 5, false);
    store.update(q0, 3, true);  // increase-only: ignored
    store.update(q1, 7, false);
    EXPECT_EQ(*store.read(q0, ReadOffsetType::kMemory), 5);
    EXPECT_EQ(*store.read(q0, ReadOffsetType::kStore), -1);  // not persisted yet
    store.update(q0, 5, false);
    store.persist_all({q0, q1});
    EXPECT_EQ(*store.read(q0, ReadOffsetType::kStore), 5);
  }
  LocalFileOffsetStore again(file());
  ASSERT_TRUE(again.load().is_ok());
  EXPECT_EQ(*again.read(q0, ReadOffsetType::kStore), 5);
  EXPECT_EQ(*again.read(q1, ReadOffsetType::kMemory), 7);
  EXPECT_EQ(again.offsets("T").size(), 2u);
  EXPECT_TRUE(again.offsets("Other").empty());
}

TEST_F(LocalFileOffsetStoreTest, GivingUpQueuesOneByOneKeepsEveryOffsetInTheFile) {
  // What a broadcasting consumer's shutdown does: persist, forget, next queue.
  const MessageQueue q0{"T", "broker-a", 0};
  const MessageQueue q1{"T", "broker-a", 1};
  {
    LocalFileOffsetStore store(file());
    ASSERT_TRUE(store.load().is_ok());
    store.update(q0, 3, false);
    store.update(q1, 8, false);
    for (const auto& queue : {q0, q1}) {
      ASSERT_TRUE(store.persist(queue).is_ok());
      store.remove(queue);
    }
  }
  LocalFileOffsetStore again(file());
  ASSERT_TRUE(again.load().is_ok());
  EXPECT_EQ(*again.read(q0, ReadOffsetType::kStore), 3);
  EXPECT_EQ(*again.read(q1, ReadOffsetType::kStore), 8);
}

TEST_F(LocalFileOffsetStoreTest, CorruptFileFallsBackToItsBackup) {
  const MessageQueue q0{"T", "broker-a", 0};
  {
    LocalFileOffsetStore store(file());
    ASSERT_TRUE(store.load().is_ok());
    store.update(q0, 4, false);
    ASSERT_TRUE(store.persist(q0).is_ok());
    store.update(q0, 9, false);
    ASSERT_TRUE(store.persist(q0).is_ok());  // the first content is now offsets.json.bak
  }
  write(file(), "{\"offsetTable\": [ {\"topic\": ");
  LocalFileOffsetStore store(file());
  ASSERT_TRUE(store.load().is_ok());
  EXPECT_EQ(*store.read(q0, ReadOffsetType::kMemory), 4);
}

TEST_F(LocalFileOffsetStoreTest, CorruptFileWithoutBackupIsAClearError) {
  write(file(), "not json");
  LocalFileOffsetStore store(file());
  const Status loaded = store.load();
  EXPECT_EQ(loaded.code(), StatusCode::kCorruption);
  EXPECT_NE(loaded.message().find(file().string()), std::string::npos);
  EXPECT_NE(loaded.message().find("delete it"), std::string::npos);
  write(file(), R"({"offsetTable":[{"topic":"T","brokerName":"b","queueId":"zero","offset":1}]})");
  EXPECT_EQ(LocalFileOffsetStore(file()).load().code(), StatusCode::kCorruption);
}

TEST(TaskPoolTest, OneThreadRunsEveryTaskOnceInOrder) {
  std::mutex mutex;
  std::vector<int> ran;
  {
    TaskPool pool("test", 1);
    for (int i = 0; i < 1000; ++i) {
      pool.post([&, i] {
        std::lock_guard lock(mutex);
        ran.push_back(i);
      });
    }
  }  // the destructor joins once the queued tasks have run
  ASSERT_EQ(ran.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(ran[static_cast<std::size_t>(i)], i);
}

TEST(TaskPoolTest, JoinRunsWhatWasQueuedAndDropsLaterTasks) {
  std::atomic<int> ran{0};
  TaskPool pool("test", 4);
  for (int i = 0; i < 200; ++i) pool.post([&] { ++ran; });
  pool.join();
  EXPECT_EQ(ran.load(), 200);
  pool.post([&] { ++ran; });
  pool.join();  // idempotent
  EXPECT_EQ(ran.load(), 200);
}

TEST(TaskPoolTest, ABoundedPoolRefusesTasksBeyondItsBound) {
  std::atomic<int> ran{0};
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  TaskPool pool("test", 1, 2);
  ASSERT_TRUE(pool.post([&] {
    started.set_value();
    released.wait();
    ++ran;
  }));
  // The thread holds the first task, so the queue is empty again.
  ASSERT_EQ(started.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(pool.post([&] { ++ran; }));
  EXPECT_TRUE(pool.post([&] { ++ran; }));
  EXPECT_FALSE(pool.post([&] { ++ran; }));  // two wait already
  release.set_value();
  pool.join();
  EXPECT_EQ(ran.load(), 3);
}

TEST(TaskPoolTest, ATaskThatThrowsDoesNotStopItsThread) {
  std::atomic<int> ran{0};
  {
    TaskPool pool("test", 1);
    pool.post([] { throw std::runtime_error("listener bug"); });
    pool.post([&] { ++ran; });
  }
  EXPECT_EQ(ran.load(), 1);
}

}  // namespace
}  // namespace mqkit::client
