// A broker killed under load: a producer sends without pause (sync and async) while a push
// consumer consumes, and broker-a is killed with SIGKILL and restarted, three times. The promise under
// test is the one a RocketMQ user relies on: every send the producer saw acknowledged reaches the
// consumer (at least once), and nothing arrives that was never sent. A second group started after
// the crashes must read every acknowledged message back from the recovered stores. Sends failed
// while broker-a was down go to broker-b through the producer's retries.
//
// Run for each way the commit log store writes: through the mapping, through the transient store
// pool (etc/broker.toml's choice), and with SYNC_FLUSH. A process crash keeps the page cache, so
// all three must keep every acknowledged message; what they differ in is the path (pool commit,
// group commit) a crash can cut in the middle. Every wait and loop is bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "client_cluster.hpp"
#include "local_cluster.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/push_consumer.hpp"

namespace mqkit::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using mqkit::testing::eventually;

constexpr const char* kTopic = "CrashTopic";
constexpr int kQueuesPerBroker = 4;
constexpr int kCrashes = 3;
constexpr std::size_t kAckedBetweenCrashes = 1000;
constexpr int kMaxSendsPerSender = 20000;  // a bound, far above what the test needs

// Bodies the producer saw acknowledged, and how many sends failed.
class Ledger {
 public:
  void acknowledged(const std::string& body) {
    std::lock_guard lock(mutex_);
    acked_.insert(body);
  }
  void failed() { failures_.fetch_add(1, std::memory_order_relaxed); }
  void sent(const std::string& body) {
    std::lock_guard lock(mutex_);
    sent_.insert(body);
  }
  std::size_t acked_count() const {
    std::lock_guard lock(mutex_);
    return acked_.size();
  }
  std::set<std::string> acked() const {
    std::lock_guard lock(mutex_);
    return acked_;
  }
  bool was_sent(const std::string& body) const {
    std::lock_guard lock(mutex_);
    return sent_.contains(body);
  }
  int failures() const { return failures_.load(std::memory_order_relaxed); }

 private:
  mutable std::mutex mutex_;
  std::set<std::string> sent_;
  std::set<std::string> acked_;
  std::atomic<int> failures_{0};
};

struct StoreVariant {
  const char* name;
  std::vector<std::string> overrides;
};
void PrintTo(const StoreVariant& variant, std::ostream* out) { *out << variant.name; }

class BrokerCrashTest : public ::testing::TestWithParam<StoreVariant> {
 protected:
  void SetUp() override {
    const std::string test_name = std::string("broker-crash-") + GetParam().name;
    cluster_ = std::make_unique<mqkit::testing::LocalCluster>(test_name);
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    std::vector<std::string> overrides = GetParam().overrides;
    for (const char* name : {"broker-a", "broker-b"}) {
      const Status started = cluster_->add_broker({.name = name, .overrides = overrides});
      ASSERT_TRUE(started.is_ok()) << started.to_string();
    }
  }

  void TearDown() override {
    stop_senders();
    consumer_.reset();
    producer_.reset();
    cluster_.reset();
  }

  // A sync sender and an async one, each stamping its bodies "<kind>-<n>".
  void start_senders() {
    ProducerConfig config;
    config.group = "crash_test_producer";
    config.client = mqkit::testing::fast_client_config(*cluster_);
    config.send_msg_timeout = milliseconds(3000);
    config.retry_times_when_send_failed = 2;
    config.retry_times_when_send_async_failed = 2;
    producer_ = std::make_unique<Producer>(config);
    ASSERT_TRUE(producer_->start().is_ok());
    ASSERT_TRUE(mqkit::testing::create_topic_on_brokers(producer_->instance()->api(), *cluster_, 2, kTopic,
                                                        kQueuesPerBroker)
                    .is_ok());
    senders_.emplace_back([this] {
      for (int i = 0; i < kMaxSendsPerSender && !stop_.load(); ++i) {
        const std::string body = "sync-" + std::to_string(i);
        ledger_.sent(body);
        auto result = producer_->send(Message(kTopic, "TagA", body));
        if (result.is_ok()) {
          ledger_.acknowledged(body);
        } else {
          ledger_.failed();
        }
      }
    });
    senders_.emplace_back([this] {
      for (int i = 0; i < kMaxSendsPerSender && !stop_.load(); ++i) {
        const std::string body = "async-" + std::to_string(i);
        ledger_.sent(body);
        auto future = producer_->send_async(Message(kTopic, "TagA", body));
        // One at a time keeps the ledger simple; the window is exercised elsewhere.
        if (future.wait_for(seconds(15)) != std::future_status::ready) {
          ledger_.failed();
          continue;
        }
        if (future.get().is_ok()) {
          ledger_.acknowledged(body);
        } else {
          ledger_.failed();
        }
      }
    });
  }

  void stop_senders() {
    stop_.store(true);
    for (auto& t : senders_) t.join();
    senders_.clear();
  }

  // Bodies a push consumer group received, with how often.
  class Consumed {
   public:
    ConcurrentListener listener() {
      return [this](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
        std::lock_guard lock(mutex_);
        for (const auto& m : messages) ++count_[m.body()];
        return ConsumeConcurrentlyStatus::kConsumeSuccess;
      };
    }
    std::map<std::string, int> counts() const {
      std::lock_guard lock(mutex_);
      return count_;
    }

   private:
    mutable std::mutex mutex_;
    std::map<std::string, int> count_;
  };

  std::unique_ptr<PushConsumer> start_consumer(const std::string& group, Consumed& consumed) {
    ConsumerConfig config = mqkit::testing::fast_consumer_config(*cluster_, group);
    config.consume_thread_count = 4;
    auto consumer = std::make_unique<PushConsumer>(config);
    EXPECT_TRUE(consumer->subscribe(kTopic, "*").is_ok());
    EXPECT_TRUE(consumer->register_listener(consumed.listener()).is_ok());
    const Status started = consumer->start();
    EXPECT_TRUE(started.is_ok()) << started.to_string();
    return consumer;
  }

  // Every acknowledged body reaches `consumed` within the patience, and nothing else does.
  void expect_every_acknowledged_arrives(const std::string& group, const Consumed& consumed) {
    SCOPED_TRACE("group " + group);
    const std::set<std::string> acked = ledger_.acked();
    std::vector<std::string> missing;
    const bool all_arrived = eventually(
        [&] {
          const auto got = consumed.counts();
          missing.clear();
          for (const auto& body : acked) {
            if (!got.contains(body)) missing.push_back(body);
          }
          return missing.empty();
        },
        seconds(60));
    EXPECT_TRUE(all_arrived) << missing.size() << " of " << acked.size()
                             << " acknowledged messages never arrived, first " << (missing.empty() ? "" : missing.front());
    int duplicates = 0;
    for (const auto& [body, count] : consumed.counts()) {
      EXPECT_TRUE(ledger_.was_sent(body)) << "received " << body << ", which was never sent";
      duplicates += count - 1;
    }
    // At least once: redelivery after a crash is allowed (offsets committed within the last
    // persist interval may be lost), but the test reports how much there was.
    std::printf("%s: acknowledged %zu, failed sends %d, duplicate deliveries %d\n", group.c_str(), acked.size(),
                ledger_.failures(), duplicates);
  }

  bool acked_reaches(std::size_t count, seconds patience) {
    return eventually([&] { return ledger_.acked_count() >= count; }, patience);
  }

  std::unique_ptr<mqkit::testing::LocalCluster> cluster_;
  std::unique_ptr<Producer> producer_;
  std::unique_ptr<PushConsumer> consumer_;
  Ledger ledger_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> senders_;
};

TEST_P(BrokerCrashTest, EveryAcknowledgedSendReachesTheConsumer) {
  start_senders();
  Consumed live;
  consumer_ = start_consumer("crash_test_live", live);
  std::size_t target = kAckedBetweenCrashes;
  ASSERT_TRUE(acked_reaches(target, seconds(60))) << ledger_.acked_count() << " acknowledged of " << target;
  for (int crash = 1; crash <= kCrashes; ++crash) {
    SCOPED_TRACE("crash " + std::to_string(crash));
    ASSERT_TRUE(cluster_->restart_broker(0, /*crash=*/true).is_ok());
    target = ledger_.acked_count() + kAckedBetweenCrashes;
    ASSERT_TRUE(acked_reaches(target, seconds(60))) << ledger_.acked_count() << " acknowledged of " << target;
  }
  stop_senders();
  // The group consuming through the crashes has everything, at least once...
  expect_every_acknowledged_arrives("crash_test_live", live);
  // ... and so does a group that starts afterwards and reads it all back from the stores, which
  // the live group's quick consumption could otherwise hide.
  Consumed late;
  auto late_consumer = start_consumer("crash_test_late", late);
  expect_every_acknowledged_arrives("crash_test_late", late);
}

INSTANTIATE_TEST_SUITE_P(
    Stores, BrokerCrashTest,
    ::testing::Values(StoreVariant{"mapped", {"store.transient_store_pool_enable=false"}},
                      StoreVariant{"pool", {"store.transient_store_pool_enable=true"}},
                      StoreVariant{"sync_flush", {"store.flush_disk_type=SYNC_FLUSH"}}),
    [](const ::testing::TestParamInfo<StoreVariant>& variant) { return std::string(variant.param.name); });

}  // namespace
}  // namespace mqkit::client
