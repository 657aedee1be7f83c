// The push consumer against a FakeCluster broker that serves one queue of stored records: flow
// control, send-back of failed batches (and local redelivery when the send-back fails), listener
// exceptions, and orderly suspension ending in the dead letter queue.
#include "mqkit/client/push_consumer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <set>
#include <thread>

#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "testing/fake_transport.hpp"

namespace mqkit::client {
namespace {

namespace v1 = plugin::v1;
namespace rq = protocol::request_code;
namespace rc = protocol::response_code;
using std::chrono::milliseconds;
using testing::FakeCluster;

constexpr const char* kClientId = "10.0.0.9@push-test";
const MessageQueue kQueue{"T", "broker-a", 0};

bool eventually(const std::function<bool()>& condition, milliseconds limit = milliseconds(10000)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return condition();
}

RemotingCommand with_fields(std::int32_t code, std::initializer_list<std::pair<const char*, std::int64_t>> fields) {
  RemotingCommand response;
  response.code = code;
  for (const auto& [key, value] : fields) response.ext_fields.set(key, value);
  return response;
}

std::int64_t field(const RemotingCommand& request, const char* key) {
  return std::stoll(std::string(request.ext_fields.get(key).value_or("-1")));
}

// Holds listener calls until opened (each wait bounded), for tests of slow listeners. Declare it
// before the consumer and open it (OpenOnExit) before the consumer shuts down, so that no
// listener still waits on it when it goes.
class ListenerGate {
 public:
  void wait() {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, std::chrono::seconds(20), [&] { return open_; });
  }
  void open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
};

struct OpenOnExit {
  ListenerGate& gate;
  ~OpenOnExit() { gate.open(); }
};

// One queue of stored messages "m<offset>" with tag TagA, served by PULL_MESSAGE; the records
// name `topic` (kQueue's as named on the wire).
class FakeQueue {
 public:
  FakeQueue(int count, std::string topic) : count_(count), topic_(std::move(topic)) {}

  RemotingCommand pull(const RemotingCommand& request) {
    const std::int64_t offset = field(request, "queueOffset");
    const std::int64_t max = field(request, "maxMsgNums");
    if (offset >= count_) {
      // Long polling stand-in: answer "nothing new" after a short while.
      std::this_thread::sleep_for(milliseconds(20));
      return with_fields(rc::kPullNotFound, {{"nextBeginOffset", count_}, {"minOffset", 0}, {"maxOffset", count_},
                                             {"suggestWhichBrokerId", suggested_.load()}});
    }
    ++pulls_with_messages_;
    RemotingCommand response = with_fields(rc::kSuccess, {{"minOffset", 0}, {"maxOffset", count_},
                                                          {"suggestWhichBrokerId", suggested_.load()}});
    std::int64_t next = offset;
    for (; next < count_ && next < offset + max; ++next) append_record(response.body, next);
    response.ext_fields.set("nextBeginOffset", next);
    return response;
  }
  int pulls_with_messages() const { return pulls_with_messages_.load(); }
  // The suggestWhichBrokerId of the answers from now on.
  void suggest(std::int64_t broker_id) { suggested_ = broker_id; }

 private:
  void append_record(std::vector<std::uint8_t>& out, std::int64_t offset) const {
    const std::string body = "m" + std::to_string(offset);
    const std::string properties = v1::encode_properties({{"TAGS", "TagA"}});
    v1::MessageToAppend m;
    m.topic = topic_;
    m.queue_id = kQueue.queue_id;
    m.body = {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()};
    m.properties = properties;
    const auto at = out.size();
    out.resize(at + static_cast<std::size_t>(v1::record_size(m)));
    const Status encoded = v1::encode_record(m, {offset, 1000 + offset * 100, 1}, {out.data() + at, out.size() - at});
    EXPECT_TRUE(encoded.is_ok()) << encoded.to_string();
  }

  const std::int64_t count_;
  const std::string topic_;
  std::atomic<int> pulls_with_messages_{0};
  std::atomic<std::int64_t> suggested_{0};
};

class PushConsumerTest : public ::testing::Test {
 protected:
  // kQueue's topic and group g's retry topic are `topic` and `retry_topic` on the wire.
  void serve(int messages, const std::string& topic = "T", const std::string& retry_topic = "%RETRY%g") {
    queue_ = std::make_shared<FakeQueue>(messages, topic);
    cluster_.add_broker("broker-a", "10.0.0.1:10911");
    cluster_.add_topic(topic, "broker-a", 1);
    cluster_.add_topic(retry_topic, "broker-a", 1);
    auto queue = queue_;
    cluster_.set_broker_handler(rq::kPullMessage, [queue, topic](const std::string&, const RemotingCommand& request) {
      if (request.ext_fields.get("topic") != topic) {  // the retry topic: empty
        std::this_thread::sleep_for(milliseconds(20));
        return with_fields(rc::kPullNotFound, {{"nextBeginOffset", 0}, {"minOffset", 0}, {"maxOffset", 0}});
      }
      return queue->pull(request);
    });
    cluster_.set_broker_handler(rq::kGetConsumerListByGroup, [](const std::string&, const RemotingCommand&) {
      RemotingCommand response;
      response.code = rc::kSuccess;
      const std::string body = protocol::encode(protocol::ConsumerIdList{{kClientId}});
      response.body.assign(body.begin(), body.end());
      return response;
    });
    // The group's offsets as the broker keeps them (handlers run under the cluster's lock).
    auto stored = std::make_shared<std::map<std::string, std::int64_t>>();
    cluster_.set_broker_handler(rq::kQueryConsumerOffset, [stored](const std::string&, const RemotingCommand& r) {
      const auto it = stored->find(std::string(r.ext_fields.get("topic").value_or("")));
      if (it == stored->end()) return with_fields(rc::kQueryNotFound, {});
      return with_fields(rc::kSuccess, {{"offset", it->second}});
    });
    cluster_.set_broker_handler(rq::kUpdateConsumerOffset, [stored](const std::string&, const RemotingCommand& r) {
      (*stored)[std::string(r.ext_fields.get("topic").value_or(""))] = field(r, "commitOffset");
      return with_fields(rc::kSuccess, {});
    });
    cluster_.set_broker_handler(rq::kLockBatchMq, [](const std::string&, const RemotingCommand& request) {
      auto asked = protocol::decode_lock_batch_request(protocol::body_text(request));
      protocol::LockBatchResponse granted;
      if (asked) granted.lock_ok_mq_set = asked->mq_set;
      RemotingCommand response;
      response.code = rc::kSuccess;
      const std::string body = protocol::encode(granted);
      response.body.assign(body.begin(), body.end());
      return response;
    });
    set_send_back_code(rc::kSuccess);
  }

  void set_send_back_code(std::int32_t code) {
    cluster_.set_broker_handler(rq::kConsumerSendMsgBack, [code](const std::string&, const RemotingCommand&) {
      return with_fields(code, {});
    });
  }

  ConsumerConfig config() const {
    ConsumerConfig c;
    c.client.namesrv_addresses = {FakeCluster::kNamesrv};
    c.client.client_ip = "10.0.0.9";
    c.client.instance_name = "push-test";
    c.client.plugin_dirs = {MQKIT_PLUGIN_DIR};
    c.group = "g";
    c.consume_from_where = ConsumeFromWhere::kFirstOffset;
    c.consume_thread_count = 2;
    c.pull_time_delay_when_exception = milliseconds(20);
    return c;
  }

  std::unique_ptr<PushConsumer> make(const ConsumerConfig& c) {
    auto instance = ClientInstance::create(c.client, cluster_.transport());
    EXPECT_TRUE(instance.is_ok()) << instance.status().to_string();
    auto consumer = std::make_unique<PushConsumer>(c, *instance);
    EXPECT_TRUE(consumer->subscribe("T", "*").is_ok());
    return consumer;
  }

  // Starts `consumer` with a listener that consumes every message, counting them in `consumed`.
  static void start_counting(PushConsumer& consumer, std::atomic<int>& consumed) {
    ASSERT_TRUE(consumer
                    .register_listener([&consumed](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                      consumed += static_cast<int>(messages.size());
                      return ConsumeConcurrentlyStatus::kConsumeSuccess;
                    })
                    .is_ok());
    ASSERT_TRUE(consumer.start().is_ok());
  }

  std::vector<RemotingCommand> send_backs() const {
    std::vector<RemotingCommand> out;
    for (auto& call : cluster_.transport()->calls_with_code(rq::kConsumerSendMsgBack)) out.push_back(call.request);
    return out;
  }

  std::int64_t committed(const PushConsumer& consumer) const {
    const auto offsets = consumer.consume_offsets();
    const auto it = offsets.find(kQueue);
    return it == offsets.end() ? -1 : it->second;
  }

  FakeCluster cluster_;
  std::shared_ptr<FakeQueue> queue_;
};

// Pulls and consume tasks finishing after shutdown hold the consumer's internals; they must not
// hold the client instance, or its threads outlive everyone who let go of it.
TEST_F(PushConsumerTest, ShutdownLetsGoOfTheClientInstance) {
  auto consumer = make(config());
  std::atomic<int> consumed{0};
  start_counting(*consumer, consumed);
  const std::weak_ptr<ClientInstance> watched = consumer->instance();
  consumer->shutdown();
  EXPECT_TRUE(watched.expired()) << "the shut-down consumer still holds its client instance";
}

TEST_F(PushConsumerTest, AFullQueueIsNotPulledUntilTheListenerCatchesUp) {
  serve(20);
  ConsumerConfig c = config();
  c.pull_batch_size = 2;
  c.pull_threshold_for_queue = 3;
  auto consumer = make(c);
  std::mutex mutex;
  std::condition_variable cv;
  bool released = false;
  std::atomic<int> consumed{0};
  ASSERT_TRUE(consumer
                  ->register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                    std::unique_lock lock(mutex);
                    cv.wait(lock, [&] { return released; });
                    consumed += static_cast<int>(messages.size());
                    return ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  // 2 cached, pulled again (2 <= 3), 4 cached: over the threshold, pulling stops.
  ASSERT_TRUE(eventually([&] { return queue_->pulls_with_messages() >= 2; }));
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(queue_->pulls_with_messages(), 2);
  {
    std::lock_guard lock(mutex);
    released = true;
  }
  cv.notify_all();
  ASSERT_TRUE(eventually([&] { return consumed.load() == 20; })) << consumed.load();
  EXPECT_TRUE(eventually([&] { return committed(*consumer) == 20; })) << committed(*consumer);
  consumer->shutdown();
  // Shutdown persisted the offset on the broker.
  bool persisted = false;
  for (const auto& call : cluster_.transport()->calls_with_code(rq::kUpdateConsumerOffset)) {
    persisted |= field(call.request, "commitOffset") == 20 && call.request.ext_fields.get("topic") == "T";
  }
  EXPECT_TRUE(persisted);
}

// suggestWhichBrokerId (slave reads): a queue's next pulls go to the broker id its last answer
// suggested, without the commit offset a slave would not store; offsets still reach the master
// by UPDATE_CONSUMER_OFFSET; when the master is suggested again the pulls carry them again.
TEST_F(PushConsumerTest, PullsGoWhereTheLastAnswerSuggestedAndOffsetsToTheMaster) {
  const std::string master = "10.0.0.1:10911";
  const std::string slave = "10.0.0.2:10911";
  serve(20);
  cluster_.add_slave("broker-a", 1, slave);
  queue_->suggest(1);
  ConsumerConfig c = config();
  c.pull_batch_size = 4;
  auto consumer = make(c);
  std::atomic<int> consumed{0};
  ASSERT_NO_FATAL_FAILURE(start_counting(*consumer, consumed));
  ASSERT_TRUE(eventually([&] { return consumed.load() == 20; })) << consumed.load();
  ASSERT_TRUE(eventually([&] { return committed(*consumer) == 20; })) << committed(*consumer);

  const auto pulls_of_t = [&] {
    std::vector<testing::FakeTransport::Call> out;
    for (auto& call : cluster_.transport()->calls_with_code(rq::kPullMessage)) {
      if (call.request.ext_fields.get("topic") == "T") out.push_back(std::move(call));
    }
    return out;
  };
  const auto from_slave = pulls_of_t();
  ASSERT_GE(from_slave.size(), 5u);  // 5 batches of 4
  EXPECT_EQ(from_slave[0].address, master) << "nothing suggested before the first answer";
  for (std::size_t i = 1; i < from_slave.size(); ++i) {
    EXPECT_EQ(from_slave[i].address, slave) << "pull " << i;
    EXPECT_EQ(field(from_slave[i].request, "sysFlag") & pull_sys_flag::kCommitOffset, 0) << "pull " << i;
  }

  queue_->suggest(0);
  const std::size_t before = from_slave.size();
  ASSERT_TRUE(eventually([&] {
    const auto pulls = pulls_of_t();
    return pulls.size() > before + 1 && pulls.back().address == master;
  }));
  const auto back = pulls_of_t().back();
  EXPECT_NE(field(back.request, "sysFlag") & pull_sys_flag::kCommitOffset, 0);
  EXPECT_EQ(field(back.request, "commitOffset"), 20);

  consumer->shutdown();
  bool persisted = false;
  for (const auto& call : cluster_.transport()->calls_with_code(rq::kUpdateConsumerOffset)) {
    EXPECT_EQ(call.address, master);
    persisted |= field(call.request, "commitOffset") == 20 && call.request.ext_fields.get("topic") == "T";
  }
  EXPECT_TRUE(persisted);
}

// A SQL92 subscription goes to the broker in heartbeats and pulls; the retry topic stays TAG "*".
TEST_F(PushConsumerTest, SqlSubscriptionIsSentWithItsExpressionType) {
  serve(3);
  auto consumer = make(config());
  EXPECT_EQ(consumer->subscribe("T", MessageSelector::by_sql("price BETWEEN 1 AND")).code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(consumer->subscribe("T", MessageSelector::by_sql("price > 1")).is_ok());
  std::atomic<int> consumed{0};
  ASSERT_NO_FATAL_FAILURE(start_counting(*consumer, consumed));
  ASSERT_TRUE(eventually([&] { return consumed.load() == 3; })) << consumed.load();  // no client-side tag filter

  bool sql_pull = false;
  bool tag_retry_pull = false;
  for (const auto& call : cluster_.transport()->calls_with_code(rq::kPullMessage)) {
    const auto& fields = call.request.ext_fields;
    if (fields.get("topic") == "T") {
      sql_pull |= fields.get("expressionType") == "SQL92" && fields.get("subscription") == "price > 1";
    } else {
      tag_retry_pull |= fields.get("expressionType") == "TAG" && fields.get("subscription") == "*";
    }
  }
  EXPECT_TRUE(sql_pull);
  EXPECT_TRUE(tag_retry_pull);
  const auto heartbeats = cluster_.transport()->calls_with_code(rq::kHeartBeat);
  ASSERT_FALSE(heartbeats.empty());
  const std::string body(heartbeats.front().request.body.begin(), heartbeats.front().request.body.end());
  EXPECT_NE(body.find("\"expressionType\":\"SQL92\""), std::string::npos) << body;
  EXPECT_NE(body.find("\"subString\":\"price > 1\""), std::string::npos) << body;
  consumer->shutdown();
}

TEST_F(PushConsumerTest, AFailedBatchIsSentBackAndItsOffsetCommitted) {
  serve(3);
  auto consumer = make(config());
  std::atomic<int> calls{0};
  ASSERT_TRUE(consumer
                  ->register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext& context) {
                    ++calls;
                    if (messages[0].body() == "m1") {
                      context.delay_level_when_next_consume = 5;
                      return ConsumeConcurrentlyStatus::kReconsumeLater;
                    }
                    if (messages[0].body() == "m2") throw std::runtime_error("listener bug");
                    return ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_TRUE(eventually([&] { return send_backs().size() == 2 && committed(*consumer) == 3; }))
      << send_backs().size() << " send-backs, offset " << committed(*consumer);
  std::map<std::int64_t, std::int64_t> delay_by_commit_offset;
  for (const auto& request : send_backs()) {
    EXPECT_EQ(request.ext_fields.get("group"), "g");
    EXPECT_EQ(request.ext_fields.get("originTopic"), "T");
    EXPECT_EQ(field(request, "maxReconsumeTimes"), 16);
    delay_by_commit_offset[field(request, "offset")] = field(request, "delayLevel");
  }
  // m1 asked for delay level 5; m2 threw, so the broker picks (0).
  EXPECT_EQ(delay_by_commit_offset, (std::map<std::int64_t, std::int64_t>{{1100, 5}, {1200, 0}}));
  EXPECT_EQ(calls.load(), 3);
}

// What a consume hook saw of one listener call.
struct HookedCall {
  std::string group;
  std::string queue_topic;
  std::vector<std::string> bodies;
  bool success = false;
  trace::ConsumeReturnType return_type{};
  bool kept_state = false;  // before_consume's hook_state came back to after_consume
};

class RecordingConsumeHook : public ConsumeHook {
 public:
  std::string_view name() const override { return "recording"; }
  void before_consume(ConsumeHookContext& call) override { call.hook_state = std::make_shared<int>(7); }
  void after_consume(ConsumeHookContext& call) override {
    HookedCall seen{std::string(call.consumer_group), call.queue.topic, {}, call.success, call.return_type,
                    call.hook_state && *std::static_pointer_cast<int>(call.hook_state) == 7};
    for (const MessageExt& message : call.messages) seen.bodies.push_back(message.body());
    std::lock_guard lock(mutex);
    calls.push_back(std::move(seen));
  }
  std::mutex mutex;
  std::vector<HookedCall> calls;
};

class ThrowingConsumeHook : public ConsumeHook {
 public:
  std::string_view name() const override { return "throwing"; }
  void before_consume(ConsumeHookContext&) override { throw std::runtime_error("hook bug"); }
  void after_consume(ConsumeHookContext&) override { throw std::runtime_error("hook bug"); }
};

TEST_F(PushConsumerTest, ConsumeHooksSurroundEveryListenerCallInOrderAndAThrowingOneChangesNothing) {
  serve(3);
  auto consumer = make(config());
  auto hook = std::make_shared<RecordingConsumeHook>();
  EXPECT_EQ(consumer->register_consume_hook(nullptr).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(consumer->register_consume_hook(std::make_shared<ThrowingConsumeHook>()).is_ok());
  ASSERT_TRUE(consumer->register_consume_hook(hook).is_ok());
  std::atomic<int> calls{0};
  ASSERT_TRUE(consumer
                  ->register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                    ++calls;
                    return messages[0].body() == "m1" ? ConsumeConcurrentlyStatus::kReconsumeLater
                                                      : ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  EXPECT_EQ(consumer->register_consume_hook(hook).code(), StatusCode::kUnavailable) << "hooks come before start()";
  ASSERT_TRUE(eventually([&] { return committed(*consumer) == 3; })) << "offset " << committed(*consumer);
  std::lock_guard lock(hook->mutex);
  ASSERT_EQ(hook->calls.size(), 3u);
  EXPECT_EQ(calls.load(), 3);
  std::map<std::string, HookedCall> by_body;
  for (const HookedCall& call : hook->calls) {
    ASSERT_EQ(call.bodies.size(), 1u);
    by_body[call.bodies[0]] = call;
  }
  EXPECT_FALSE(by_body["m1"].success);
  EXPECT_EQ(by_body["m1"].return_type, trace::ConsumeReturnType::kFailed);
  EXPECT_TRUE(by_body["m2"].success);
  EXPECT_EQ(by_body["m2"].return_type, trace::ConsumeReturnType::kSuccess);
  for (const auto& [body, call] : by_body) {
    EXPECT_EQ(call.group, "g");
    EXPECT_EQ(call.queue_topic, "T");
    EXPECT_TRUE(call.kept_state) << body;
  }
}

TEST_F(PushConsumerTest, AMessageWhoseSendBackFailsIsConsumedAgainLocally) {
  serve(1);
  set_send_back_code(rc::kSystemError);
  // The fallback, a new message to the group's retry topic, is refused too.
  cluster_.set_broker_handler(rq::kSendMessageV2, [](const std::string&, const RemotingCommand&) {
    return with_fields(rc::kSystemError, {});
  });
  auto consumer = make(config());
  std::mutex mutex;
  std::vector<int> reconsume_times;
  ASSERT_TRUE(consumer
                  ->register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                    std::lock_guard lock(mutex);
                    reconsume_times.push_back(messages[0].reconsume_times);
                    return reconsume_times.size() == 1 ? ConsumeConcurrentlyStatus::kReconsumeLater
                                                       : ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_TRUE(eventually([&] { return send_backs().size() == 1; }));
  // The message is still pending: the offset settles at it, not past it (the failed send-back's
  // fallback may take a while before the consumer records the offset at all).
  EXPECT_TRUE(eventually([&] { return committed(*consumer) == 0; })) << committed(*consumer);
  // The local retry comes 5 s after the failed send-back (RocketMQ's delay): wait well past it,
  // as a loaded CI machine may run it late.
  ASSERT_TRUE(eventually(
      [&] {
        std::lock_guard lock(mutex);
        return reconsume_times.size() == 2;
      },
      milliseconds(20000)));
  {
    std::lock_guard lock(mutex);
    EXPECT_EQ(reconsume_times, (std::vector<int>{0, 1}));
  }
  EXPECT_TRUE(eventually([&] { return committed(*consumer) == 1; }));
}

// RocketMQ's sendMessageBackAsNormalMessage: when the broker refuses the send-back, the message
// goes to %RETRY%<group> as a new message that names its topic and counts this reconsume, and is
// not consumed again locally.
TEST_F(PushConsumerTest, AMessageWhoseSendBackFailsIsSentToTheRetryTopicInstead) {
  serve(1);
  set_send_back_code(rc::kSystemError);
  auto consumer = make(config());
  std::atomic<int> calls{0};
  ASSERT_TRUE(consumer
                  ->register_listener([&](std::span<const MessageExt>, ConsumeConcurrentlyContext&) {
                    return ++calls == 1 ? ConsumeConcurrentlyStatus::kReconsumeLater
                                        : ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_TRUE(eventually([&] { return !cluster_.transport()->calls_with_code(rq::kSendMessageV2).empty(); }))
      << "nothing was sent to the retry topic";
  const RemotingCommand sent = cluster_.transport()->calls_with_code(rq::kSendMessageV2).front().request;
  EXPECT_EQ(sent.ext_fields.get("b").value_or(""), "%RETRY%g");  // V2's short names: b = topic
  EXPECT_EQ(sent.ext_fields.get("a").value_or(""), "CLIENT_INNER_PRODUCER");
  EXPECT_EQ(sent.ext_fields.get("j").value_or(""), "1");   // reconsumeTimes
  EXPECT_EQ(sent.ext_fields.get("l").value_or(""), "16");  // maxReconsumeTimes
  const std::string properties(sent.ext_fields.get("i").value_or(""));
  EXPECT_NE(properties.find(std::string("RETRY_TOPIC\x01") + kQueue.topic + "\x02"), std::string::npos) << properties;
  EXPECT_NE(properties.find("RECONSUME_TIME\x01" "1\x02"), std::string::npos) << properties;
  EXPECT_NE(properties.find("DELAY\x01" "3\x02"), std::string::npos) << properties;
  EXPECT_NE(properties.find("ORIGIN_MESSAGE_ID\x01"), std::string::npos) << properties;
  EXPECT_TRUE(eventually([&] { return committed(*consumer) == 1; })) << "the offset never moved past the message";
  EXPECT_EQ(calls.load(), 1) << "the message was consumed again locally as well";
}

// A listener stuck on m0 past consume_timeout: m0 is sent back (delay level 3) and leaves the
// process queue, so the offset moves past it while the listener is still blocked.
TEST_F(PushConsumerTest, AMessageConsumedPastTheConsumeTimeoutIsSentBackAndItsOffsetCommitted) {
  serve(2);
  ConsumerConfig c = config();
  c.consume_timeout = milliseconds(200);
  ListenerGate gate;
  auto consumer = make(c);
  OpenOnExit open_on_exit{gate};
  ASSERT_TRUE(consumer
                  ->register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                    if (messages[0].body() == "m0") gate.wait();
                    return ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_TRUE(eventually([&] { return send_backs().size() == 1 && committed(*consumer) == 2; }))
      << send_backs().size() << " send-backs, offset " << committed(*consumer);
  const auto back = send_backs()[0];
  EXPECT_EQ(field(back, "offset"), 1000);  // m0's commit log offset
  EXPECT_EQ(field(back, "delayLevel"), 3);
  EXPECT_EQ(back.ext_fields.get("originTopic"), "T");
  gate.open();
  // The late success changes nothing: no second send-back, the offset stays.
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_EQ(send_backs().size(), 1u);
  EXPECT_EQ(committed(*consumer), 2);
}

// Orderly consumption has no consume timeout (RocketMQ excludes it): a slow orderly listener
// keeps its message.
TEST_F(PushConsumerTest, OrderlyListenersAreNotTimedOut) {
  serve(1);
  ConsumerConfig c = config();
  c.consume_timeout = milliseconds(100);
  auto consumer = make(c);
  std::atomic<int> calls{0};
  ASSERT_TRUE(consumer
                  ->register_listener([&](std::span<const MessageExt>, ConsumeOrderlyContext&) {
                    ++calls;
                    std::this_thread::sleep_for(milliseconds(500));
                    return ConsumeOrderlyStatus::kSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_TRUE(eventually([&] { return committed(*consumer) == 1; })) << committed(*consumer);
  EXPECT_TRUE(send_backs().empty());
  EXPECT_EQ(calls.load(), 1);
}

// GET_CONSUMER_RUNNING_INFO as a broker forwards it from mqadmin consumerStatus: RocketMQ's
// ConsumerRunningInfo of the running consumer, with a message held by its listener in mqTable.
TEST_F(PushConsumerTest, AnswersConsumerRunningInfoWithItsSettingsSubscriptionsAndQueues) {
  serve(3);
  ListenerGate gate;
  auto consumer = make(config());
  OpenOnExit open_on_exit{gate};
  ASSERT_TRUE(consumer
                  ->register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                    if (messages[0].body() == "m2") gate.wait();
                    return ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  const auto now_ms = [] {
    return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  };
  const std::int64_t before_start = now_ms();
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_TRUE(eventually([&] { return committed(*consumer) == 2; })) << committed(*consumer);

  auto request = RemotingCommand::request(rq::kGetConsumerRunningInfo);
  request.ext_fields.set("consumerGroup", "g");
  request.ext_fields.set("clientId", kClientId);
  request.ext_fields.set("jstackEnable", false);
  cluster_.transport()->deliver_request("10.0.0.1:10911", request);
  const RemotingCommand answer = cluster_.transport()->client_responses().back();
  ASSERT_EQ(answer.code, rc::kSuccess) << answer.remark.value_or("");
  auto info = protocol::decode_consumer_running_info(protocol::body_text(answer));
  ASSERT_TRUE(info.is_ok()) << info.status().to_string();
  const auto& p = info->properties;
  EXPECT_EQ(p.at("consumerGroup"), "g");
  EXPECT_EQ(p.at("messageModel"), "CLUSTERING");
  EXPECT_EQ(p.at("consumeFromWhere"), "CONSUME_FROM_FIRST_OFFSET");
  EXPECT_EQ(p.at("consumeTimeout"), "15");
  EXPECT_EQ(p.at("consumeThreadMin"), "2");
  EXPECT_EQ(p.at("PROP_CONSUME_TYPE"), "CONSUME_PASSIVELY");
  EXPECT_EQ(p.at("PROP_CONSUMEORDERLY"), "false");
  EXPECT_EQ(p.at("PROP_THREADPOOL_CORE_SIZE"), "2");
  EXPECT_EQ(p.at("PROP_CLIENT_VERSION"), "V4_9_4");
  const std::int64_t started = std::stoll(p.at("PROP_CONSUMER_START_TIMESTAMP"));
  EXPECT_GE(started, before_start);
  EXPECT_LE(started, now_ms());
  std::set<std::string> topics;
  for (const auto& subscription : info->subscription_set) topics.insert(subscription.topic);
  EXPECT_EQ(topics, (std::set<std::string>{"%RETRY%g", "T"}));
  ASSERT_TRUE(info->mq_table.contains(kQueue));
  const protocol::ProcessQueueInfo& queue = info->mq_table.at(kQueue);
  EXPECT_EQ(queue.commit_offset, 2);  // m2 is still in its listener
  EXPECT_EQ(queue.cached_msg_count, 1);
  EXPECT_EQ(queue.cached_msg_min_offset, 2);
  EXPECT_EQ(queue.cached_msg_max_offset, 2);
  EXPECT_FALSE(queue.dropped);
  EXPECT_GE(queue.last_pull_timestamp, before_start);
  EXPECT_GE(queue.last_consume_timestamp, before_start);
  EXPECT_TRUE(info->status_table.empty());
}

TEST_F(PushConsumerTest, OrderlySuspensionRetriesTheSameMessageThenDeadLettersIt) {
  serve(2);
  ConsumerConfig c = config();
  c.max_reconsume_times = 2;
  c.suspend_current_queue_time = milliseconds(10);
  auto consumer = make(c);
  std::mutex mutex;
  std::vector<std::string> seen;
  ASSERT_TRUE(consumer
                  ->register_listener([&](std::span<const MessageExt> messages, ConsumeOrderlyContext&) {
                    std::lock_guard lock(mutex);
                    seen.push_back(messages[0].body() + "/" + std::to_string(messages[0].reconsume_times));
                    return messages[0].body() == "m0" ? ConsumeOrderlyStatus::kSuspendCurrentQueueAMoment
                                                      : ConsumeOrderlyStatus::kSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_TRUE(eventually([&] { return committed(*consumer) == 2; })) << committed(*consumer);
  {
    std::lock_guard lock(mutex);
    // m1 waits behind m0: order holds while m0 is retried, until m0 goes to the DLQ.
    EXPECT_EQ(seen, (std::vector<std::string>{"m0/0", "m0/1", "m0/2", "m1/0"}));
  }
  const auto backs = send_backs();
  ASSERT_EQ(backs.size(), 1u);
  EXPECT_EQ(field(backs[0], "delayLevel"), -1);  // straight to %DLQ%g
  EXPECT_FALSE(cluster_.transport()->calls_with_code(rq::kLockBatchMq).empty());
}

TEST_F(PushConsumerTest, AnOffsetResetFromTheBrokerMakesTheConsumerResumeThere) {
  serve(3);
  auto consumer = make(config());
  std::mutex mutex;
  std::vector<std::string> seen;
  ASSERT_TRUE(consumer
                  ->register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                    std::lock_guard lock(mutex);
                    for (const auto& m : messages) seen.push_back(m.body());
                    return ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_TRUE(eventually([&] { return committed(*consumer) == 3; }));
  // What mqadmin resetOffsetByTime makes a broker send (one-way, the body brokers write for C++).
  auto notice = RemotingCommand::request(rq::kResetConsumerClientOffset);
  notice.flag = RemotingCommand::kOnewayFlag;
  notice.ext_fields.set("topic", "T");
  notice.ext_fields.set("group", "g");
  notice.ext_fields.set("timestamp", std::int64_t{0});
  notice.ext_fields.set("isForce", true);
  const std::string body =
      R"({"offsetTable":[{"brokerName":"broker-a","offset":1,"queueId":0,"topic":"T"}]})";
  notice.body.assign(body.begin(), body.end());
  cluster_.transport()->deliver_request("10.0.0.1:10911", notice);
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return seen.size() == 5;
  }));
  std::this_thread::sleep_for(milliseconds(200));
  std::lock_guard lock(mutex);
  std::sort(seen.begin(), seen.end());  // listener threads may finish in any order
  EXPECT_EQ(seen, (std::vector<std::string>{"m0", "m1", "m1", "m2", "m2"}));
  EXPECT_EQ(committed(*consumer), 3);
}

// With a namespace the wire says ns1%T, ns1%g and %RETRY%ns1%g; the listener sees T, and the
// queues the consumer shows are named as the application named them.
TEST_F(PushConsumerTest, ANamespaceWrapsTheWireNamesAndTheListenerSeesItsOwn) {
  serve(4, "ns1%T", "%RETRY%ns1%g");
  ConsumerConfig c = config();
  c.client.name_space = "ns1";
  auto consumer = make(c);
  std::mutex mutex;
  std::set<std::string> topics_seen;
  std::set<std::string> context_topics;
  std::atomic<int> calls{0};
  ASSERT_TRUE(consumer
                  ->register_listener([&](std::span<const MessageExt> messages, ConsumeConcurrentlyContext& context) {
                    {
                      std::lock_guard lock(mutex);
                      for (const auto& m : messages) topics_seen.insert(m.topic());
                      context_topics.insert(context.queue.topic);
                    }
                    // The first batch is sent back once.
                    return ++calls == 1 ? ConsumeConcurrentlyStatus::kReconsumeLater
                                        : ConsumeConcurrentlyStatus::kConsumeSuccess;
                  })
                  .is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  EXPECT_EQ(consumer->config().group, "ns1%g");
  ASSERT_TRUE(eventually([&] { return committed(*consumer) == 4; })) << committed(*consumer);
  {
    std::lock_guard lock(mutex);
    EXPECT_EQ(topics_seen, std::set<std::string>{"T"});
    EXPECT_EQ(context_topics, std::set<std::string>{"T"});
  }
  EXPECT_EQ(consumer->owned_queues(), (std::set<MessageQueue>{kQueue, MessageQueue{"%RETRY%g", "broker-a", 0}}));

  const auto backs = send_backs();
  ASSERT_EQ(backs.size(), 1u);
  EXPECT_EQ(backs[0].ext_fields.get("group"), "ns1%g");
  EXPECT_EQ(backs[0].ext_fields.get("originTopic"), "ns1%T");

  std::set<std::string> pulled_topics;
  for (const auto& call : cluster_.transport()->calls_with_code(rq::kPullMessage)) {
    pulled_topics.insert(std::string(call.request.ext_fields.get("topic").value_or("")));
    EXPECT_EQ(call.request.ext_fields.get("consumerGroup"), "ns1%g");
  }
  EXPECT_EQ(pulled_topics, (std::set<std::string>{"ns1%T", "%RETRY%ns1%g"}));

  const auto heartbeat = cluster_.transport()->last_consumer_heartbeat();
  ASSERT_TRUE(heartbeat.is_ok()) << heartbeat.status().to_string();
  EXPECT_EQ(heartbeat->group_name, "ns1%g");
  std::set<std::string> subscribed;
  for (const auto& subscription : heartbeat->subscription_data_set) subscribed.insert(subscription.topic);
  EXPECT_EQ(subscribed, (std::set<std::string>{"ns1%T", "%RETRY%ns1%g"}));

  consumer->shutdown();
  bool persisted = false;
  for (const auto& call : cluster_.transport()->calls_with_code(rq::kUpdateConsumerOffset)) {
    EXPECT_EQ(call.request.ext_fields.get("consumerGroup"), "ns1%g");
    persisted |= field(call.request, "commitOffset") == 4 && call.request.ext_fields.get("topic") == "ns1%T";
  }
  EXPECT_TRUE(persisted);
}

}  // namespace
}  // namespace mqkit::client
