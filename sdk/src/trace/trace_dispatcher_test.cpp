#include "trace/trace_dispatcher.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace mqkit::client::trace {
namespace {

using std::chrono::milliseconds;

struct SentMessage {
  std::string body;
  std::vector<std::string> keys;
};

// What the dispatcher handed over; a sink may be held closed to keep the dispatcher's thread busy.
class RecordingSink {
 public:
  TraceMessageSink sink() {
    return [this](std::string body, std::vector<std::string> keys) {
      std::unique_lock lock(mutex_);
      open_.wait(lock, [this] { return !held_; });
      sent_.push_back({std::move(body), std::move(keys)});
      changed_.notify_all();
    };
  }
  void hold() {
    std::lock_guard lock(mutex_);
    held_ = true;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      held_ = false;
    }
    open_.notify_all();
  }
  bool wait_for(std::size_t count, milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return sent_.size() >= count; });
  }
  std::vector<SentMessage> sent() const {
    std::lock_guard lock(mutex_);
    return sent_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable open_;
  std::condition_variable changed_;
  bool held_ = false;
  std::vector<SentMessage> sent_;
};

TraceContext pub(const std::string& msg_id, const std::string& keys = "") {
  TraceContext context{.type = TraceType::kPub, .timestamp_ms = 1, .region_id = "R", .group = "G"};
  context.beans.push_back({.topic = "T", .msg_id = msg_id, .keys = keys, .store_host = "h:1"});
  return context;
}

std::size_t records_in(const std::string& body) { return static_cast<std::size_t>(std::count(body.begin(), body.end(), '\x02')); }

TEST(TraceDispatcherTest, BatchesRecordsUntilTheFirstWaitedMaxDelay) {
  RecordingSink recorded;
  TraceDispatcher dispatcher(recorded.sink(), {.queue_capacity = 100, .batch_bytes = 1 << 20, .max_delay = milliseconds(300)});
  const auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(dispatcher.append(pub("A", "k1 k2")));
  EXPECT_TRUE(dispatcher.append(pub("B", "k2")));
  EXPECT_TRUE(dispatcher.append(pub("C")));
  ASSERT_TRUE(recorded.wait_for(1, milliseconds(5000)));
  EXPECT_GE(std::chrono::steady_clock::now() - started, milliseconds(250));
  const auto sent = recorded.sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(records_in(sent[0].body), 3u);
  EXPECT_EQ(sent[0].body, encode_trace_context(pub("A", "k1 k2")).data + encode_trace_context(pub("B", "k2")).data +
                              encode_trace_context(pub("C")).data);
  // Every message id and key once.
  EXPECT_EQ(sent[0].keys, (std::vector<std::string>{"A", "k1", "k2", "B", "C"}));
}

TEST(TraceDispatcherTest, SendsOnceTheBodyReachesBatchBytes) {
  RecordingSink recorded;
  const std::size_t record_size = encode_trace_context(pub("A")).data.size();
  // Three records fill a batch; the max delay is far off, so only the size sends.
  TraceDispatcher dispatcher(recorded.sink(),
                             {.queue_capacity = 100, .batch_bytes = 3 * record_size, .max_delay = milliseconds(60000)});
  for (const char* id : {"A", "B", "C", "D", "E", "F", "G"}) EXPECT_TRUE(dispatcher.append(pub(id)));
  ASSERT_TRUE(recorded.wait_for(2, milliseconds(5000)));
  std::this_thread::sleep_for(milliseconds(100));
  auto sent = recorded.sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(records_in(sent[0].body), 3u);
  EXPECT_EQ(records_in(sent[1].body), 3u);
  // The seventh waits for more, or for shutdown, which hands it over.
  dispatcher.shutdown();
  sent = recorded.sent();
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[2].keys, (std::vector<std::string>{"G"}));
}

TEST(TraceDispatcherTest, AFullQueueDropsAndCountsWithoutBlocking) {
  RecordingSink recorded;
  recorded.hold();  // the dispatcher's thread stalls in the sink with the first message
  TraceDispatcher dispatcher(recorded.sink(), {.queue_capacity = 4, .batch_bytes = 1, .max_delay = milliseconds(0)});
  EXPECT_TRUE(dispatcher.append(pub("first")));
  std::this_thread::sleep_for(milliseconds(50));  // usually the thread is stuck with "first" by now
  int accepted = 0;
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) accepted += dispatcher.append(pub(std::string("M").append(std::to_string(i)))) ? 1 : 0;
  EXPECT_LT(std::chrono::steady_clock::now() - started, milliseconds(1000));
  EXPECT_LE(accepted, 4);
  EXPECT_GE(dispatcher.discarded(), 96u);
  recorded.release();
  dispatcher.shutdown();
  // Nothing accepted was lost: "first" and the accepted ones, one record per message.
  std::size_t records = 0;
  for (const auto& message : recorded.sent()) records += records_in(message.body);
  EXPECT_EQ(records, 1u + static_cast<std::size_t>(accepted));
  EXPECT_FALSE(dispatcher.append(pub("late")));  // shut down
}

TEST(TraceDispatcherTest, ShutdownHandsOverWhatIsQueued) {
  RecordingSink recorded;
  TraceDispatcher dispatcher(recorded.sink(), {.queue_capacity = 100, .batch_bytes = 1 << 20, .max_delay = milliseconds(60000)});
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(dispatcher.append(pub(std::string("M").append(std::to_string(i)))));
  const auto started = std::chrono::steady_clock::now();
  dispatcher.shutdown();
  EXPECT_LT(std::chrono::steady_clock::now() - started, milliseconds(5000));
  const auto sent = recorded.sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(records_in(sent[0].body), 10u);
  dispatcher.shutdown();  // idempotent
  EXPECT_EQ(recorded.sent().size(), 1u);
}

}  // namespace
}  // namespace mqkit::client::trace
