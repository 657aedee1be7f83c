// The lite pull consumer against a FakeCluster whose broker keeps two queues of messages in
// memory: poll order, seek, commit and committed offsets, pause/resume, subscribe vs assign,
// tag filtering, flow control, and the bookkeeping of LitePullAssignment on its own.
#include "lite_pull_assignment.hpp"
#include "mqkit/client/lite_pull_consumer.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <thread>

#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/plugin/v1/store.hpp"
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

const MessageQueue kQ0{"T", "broker-a", 0};
const MessageQueue kQ1{"T", "broker-a", 1};

std::int64_t field_int(const RemotingCommand& request, const char* name) {
  return std::stoll(std::string(request.ext_fields.get(name).value_or("-1")));
}

RemotingCommand reply(std::int32_t code, std::map<std::string, std::int64_t> fields = {}) {
  RemotingCommand response;
  response.code = code;
  for (const auto& [name, value] : fields) response.ext_fields.set(name, value);
  return response;
}

// One broker's queues of topic T (as named on the wire: set_topic): messages with a tag, stored at
// a given time; offsets of the group.
class FakeQueues {
 public:
  void set_topic(std::string topic) {
    std::lock_guard lock(mutex_);
    topic_ = std::move(topic);
  }
  struct Stored {
    std::string tag;
    std::string body;
    std::int64_t store_timestamp = 0;
  };

  void add(int queue_id, const std::string& tag, const std::string& body, std::int64_t store_timestamp = 0) {
    std::lock_guard lock(mutex_);
    queues_[queue_id].push_back({tag, body, store_timestamp});
  }
  std::map<int, std::int64_t> committed() const {
    std::lock_guard lock(mutex_);
    return committed_;
  }
  void set_committed(int queue_id, std::int64_t offset) {
    std::lock_guard lock(mutex_);
    committed_[queue_id] = offset;
  }
  std::size_t served() const {
    std::lock_guard lock(mutex_);
    return served_;
  }
  // The suggestWhichBrokerId of the answers with messages from now on.
  void suggest(std::int64_t broker_id) {
    std::lock_guard lock(mutex_);
    suggested_ = broker_id;
  }

  void install(FakeCluster& cluster, std::function<std::string()> client_id) {
    cluster.set_broker_handler(rq::kLitePullMessage, [this](const std::string&, const RemotingCommand& r) {
      return pull(r);
    });
    cluster.set_broker_handler(rq::kGetMinOffset, [](const std::string&, const RemotingCommand&) {
      return reply(rc::kSuccess, {{"offset", 0}});
    });
    cluster.set_broker_handler(rq::kGetMaxOffset, [this](const std::string&, const RemotingCommand& r) {
      std::lock_guard lock(mutex_);
      return reply(rc::kSuccess, {{"offset", size_of(static_cast<int>(field_int(r, "queueId")))}});
    });
    cluster.set_broker_handler(rq::kSearchOffsetByTimestamp, [this](const std::string&, const RemotingCommand& r) {
      std::lock_guard lock(mutex_);
      const auto& queue = queues_[static_cast<int>(field_int(r, "queueId"))];
      std::int64_t offset = 0;
      while (offset < static_cast<std::int64_t>(queue.size()) &&
             queue[static_cast<std::size_t>(offset)].store_timestamp < field_int(r, "timestamp")) {
        ++offset;
      }
      return reply(rc::kSuccess, {{"offset", offset}});
    });
    cluster.set_broker_handler(rq::kQueryConsumerOffset, [this](const std::string&, const RemotingCommand& r) {
      std::lock_guard lock(mutex_);
      const auto it = committed_.find(static_cast<int>(field_int(r, "queueId")));
      return it == committed_.end() ? reply(rc::kQueryNotFound) : reply(rc::kSuccess, {{"offset", it->second}});
    });
    cluster.set_broker_handler(rq::kUpdateConsumerOffset, [this](const std::string&, const RemotingCommand& r) {
      std::lock_guard lock(mutex_);
      committed_[static_cast<int>(field_int(r, "queueId"))] = field_int(r, "commitOffset");
      return reply(rc::kSuccess);
    });
    cluster.set_broker_handler(rq::kGetConsumerListByGroup, [client_id](const std::string&, const RemotingCommand&) {
      RemotingCommand response = reply(rc::kSuccess);
      const std::string body = protocol::encode(protocol::ConsumerIdList{{client_id()}});
      response.body.assign(body.begin(), body.end());
      return response;
    });
  }

 private:
  std::int64_t size_of(int queue_id) { return static_cast<std::int64_t>(queues_[queue_id].size()); }

  RemotingCommand pull(const RemotingCommand& request) {
    std::lock_guard lock(mutex_);
    const int queue_id = static_cast<int>(field_int(request, "queueId"));
    const std::int64_t offset = field_int(request, "queueOffset");
    const std::int64_t size = size_of(queue_id);
    if (offset > size) return reply(rc::kPullOffsetMoved, {{"nextBeginOffset", size}, {"minOffset", 0}, {"maxOffset", size}});
    if (offset == size) return reply(rc::kPullNotFound, {{"nextBeginOffset", size}, {"minOffset", 0}, {"maxOffset", size}});
    const std::int64_t end = std::min(size, offset + field_int(request, "maxMsgNums"));
    RemotingCommand response =
        reply(rc::kSuccess, {{"nextBeginOffset", end}, {"minOffset", 0}, {"maxOffset", size}, {"suggestWhichBrokerId", suggested_}});
    for (std::int64_t at = offset; at < end; ++at) {
      const Stored& stored = queues_[queue_id][static_cast<std::size_t>(at)];
      const std::string properties = v1::encode_properties({{std::string(v1::property::kTags), stored.tag}});
      v1::MessageToAppend m;
      m.topic = topic_;
      m.queue_id = queue_id;
      m.body = {reinterpret_cast<const std::uint8_t*>(stored.body.data()), stored.body.size()};
      m.properties = properties;
      std::vector<std::uint8_t> record(static_cast<std::size_t>(v1::record_size(m)));
      EXPECT_TRUE(v1::encode_record(m, {at, 1000 + at, stored.store_timestamp}, record).is_ok());
      response.body.insert(response.body.end(), record.begin(), record.end());
    }
    served_ += static_cast<std::size_t>(end - offset);
    return response;
  }

  mutable std::mutex mutex_;
  std::string topic_ = "T";
  std::map<int, std::vector<Stored>> queues_;
  std::map<int, std::int64_t> committed_;
  std::size_t served_ = 0;
  std::int64_t suggested_ = 0;
};

class LitePullConsumerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.add_broker("broker-a", "10.0.0.1:10911");
    cluster_.add_topic("T", "broker-a", 2);
    ClientConfig config;
    config.namesrv_addresses = {FakeCluster::kNamesrv};
    config.client_ip = "10.0.0.9";
    config.instance_name = "lite-pull-test";
    config.plugin_dirs = {MQKIT_PLUGIN_DIR};
    auto made = ClientInstance::create(config, cluster_.transport());
    ASSERT_TRUE(made.is_ok()) << made.status().to_string();
    instance_ = std::move(made).value();
    queues_.install(cluster_, [instance = instance_.get()] { return instance->client_id(); });
  }

  ConsumerConfig config() const {
    ConsumerConfig config;
    config.group = "g";
    config.consume_from_where = ConsumeFromWhere::kFirstOffset;
    config.pull_interval = milliseconds(5);  // the fake broker does not hold pulls
    config.auto_commit = false;
    return config;
  }

  std::unique_ptr<LitePullConsumer> make(ConsumerConfig config) {
    return std::make_unique<LitePullConsumer>(std::move(config), instance_);
  }

  // A running consumer of kQ0 that polled and committed the queue's three messages.
  std::unique_ptr<LitePullConsumer> polled_and_committed_three() {
    for (int i = 0; i < 3; ++i) queues_.add(0, "A", std::to_string(i));
    auto consumer = make(config());
    EXPECT_TRUE(consumer->assign({kQ0}).is_ok());
    EXPECT_TRUE(consumer->start().is_ok());
    EXPECT_EQ(poll_n(*consumer, 3).size(), 3u);
    EXPECT_TRUE(consumer->commit().is_ok());
    return consumer;
  }

  // The client's answer to `request`, sent to it by broker-a.
  RemotingCommand answer_from_client(const RemotingCommand& request) {
    cluster_.transport()->deliver_request("10.0.0.1:10911", request);
    return cluster_.transport()->client_responses().back();
  }

  // Polls until `count` messages came (or `limit` passed).
  static std::vector<MessageExt> poll_n(LitePullConsumer& consumer, std::size_t count,
                                        milliseconds limit = milliseconds(5000)) {
    std::vector<MessageExt> out;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
      auto got = consumer.poll(milliseconds(100));
      EXPECT_TRUE(got.is_ok()) << got.status().to_string();
      if (!got) break;
      out.insert(out.end(), got->begin(), got->end());
    }
    return out;
  }

  static std::vector<std::string> bodies_of(const std::vector<MessageExt>& messages, int queue_id) {
    std::vector<std::string> out;
    for (const auto& m : messages) {
      if (m.queue_id == queue_id) out.push_back(m.body());
    }
    return out;
  }

  FakeCluster cluster_;
  FakeQueues queues_;
  std::shared_ptr<ClientInstance> instance_;
};

TEST_F(LitePullConsumerTest, AssignedQueuesArePolledInQueueOrderAndCommitWritesPollPositions) {
  for (int i = 0; i < 5; ++i) queues_.add(0, "A", "q0-" + std::to_string(i));
  for (int i = 0; i < 3; ++i) queues_.add(1, "A", "q1-" + std::to_string(i));
  ConsumerConfig settings = config();
  settings.pull_batch_size = 2;
  auto consumer = make(settings);
  ASSERT_TRUE(consumer->assign({kQ0, kQ1}).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  EXPECT_EQ(consumer->assignment(), (std::set<MessageQueue>{kQ0, kQ1}));

  const auto got = poll_n(*consumer, 8);
  ASSERT_EQ(got.size(), 8u);
  EXPECT_EQ(bodies_of(got, 0), (std::vector<std::string>{"q0-0", "q0-1", "q0-2", "q0-3", "q0-4"}));
  EXPECT_EQ(bodies_of(got, 1), (std::vector<std::string>{"q1-0", "q1-1", "q1-2"}));
  for (const auto& m : got) EXPECT_EQ(m.broker_name, "broker-a");

  EXPECT_TRUE(queues_.committed().empty());  // nothing committed before commit()
  ASSERT_TRUE(consumer->commit().is_ok());
  EXPECT_EQ(queues_.committed(), (std::map<int, std::int64_t>{{0, 5}, {1, 3}}));
  EXPECT_EQ(consumer->committed(kQ0).value_or(-9), 5);

  // An explicit offset map; poll positions do not move.
  ASSERT_TRUE(consumer->commit({{kQ1, 1}}).is_ok());
  EXPECT_EQ(queues_.committed()[1], 1);
  EXPECT_EQ(consumer->commit({{MessageQueue{"T", "broker-a", 7}, 1}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(consumer->commit({{kQ0, -1}}).code(), StatusCode::kInvalidArgument);
}

// RocketMQ's lite pull consumer runs its consume hooks on what poll() returns, as consumed.
TEST_F(LitePullConsumerTest, ConsumeHooksSeeEveryPolledBatchAsConsumed) {
  class Recording : public ConsumeHook {
   public:
    std::string_view name() const override { return "recording"; }
    void before_consume(ConsumeHookContext& call) override { call.hook_state = std::make_shared<int>(1); }
    void after_consume(ConsumeHookContext& call) override {
      EXPECT_TRUE(call.hook_state);
      EXPECT_TRUE(call.success);
      EXPECT_EQ(call.return_type, trace::ConsumeReturnType::kSuccess);
      EXPECT_EQ(call.consumer_group, "g");
      for (const MessageExt& message : call.messages) {
        EXPECT_EQ(call.queue.queue_id, message.queue_id);
        bodies.push_back(message.body());
      }
    }
    std::vector<std::string> bodies;  // poll() runs on the test's thread
  };
  for (int i = 0; i < 3; ++i) queues_.add(0, "A", std::to_string(i));
  auto consumer = make(config());
  auto hook = std::make_shared<Recording>();
  ASSERT_TRUE(consumer->register_consume_hook(hook).is_ok());
  ASSERT_TRUE(consumer->assign({kQ0}).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  EXPECT_EQ(consumer->register_consume_hook(hook).code(), StatusCode::kUnavailable);
  EXPECT_EQ(poll_n(*consumer, 3).size(), 3u);
  EXPECT_EQ(hook->bodies, (std::vector<std::string>{"0", "1", "2"}));
}

// suggestWhichBrokerId (slave reads): after the first answer a queue is pulled from the slave
// its answers suggest.
TEST_F(LitePullConsumerTest, PullsGoWhereTheLastAnswerSuggested) {
  cluster_.add_slave("broker-a", 1, "10.0.0.2:10911");
  queues_.suggest(1);
  for (int i = 0; i < 6; ++i) queues_.add(0, "A", "q0-" + std::to_string(i));
  ConsumerConfig settings = config();
  settings.pull_batch_size = 2;
  auto consumer = make(settings);
  ASSERT_TRUE(consumer->assign({kQ0}).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  const auto got = poll_n(*consumer, 6);
  EXPECT_EQ(bodies_of(got, 0), (std::vector<std::string>{"q0-0", "q0-1", "q0-2", "q0-3", "q0-4", "q0-5"}));

  const auto pulls = cluster_.transport()->calls_with_code(rq::kLitePullMessage);
  ASSERT_GE(pulls.size(), 3u);
  EXPECT_EQ(pulls[0].address, "10.0.0.1:10911");
  EXPECT_EQ(pulls[1].address, "10.0.0.2:10911");
  EXPECT_EQ(pulls[2].address, "10.0.0.2:10911");
}

TEST_F(LitePullConsumerTest, AnswersConsumerRunningInfo) {
  const auto consumer = polled_and_committed_three();
  auto request = RemotingCommand::request(protocol::request_code::kGetConsumerRunningInfo);
  request.ext_fields.set("consumerGroup", "g");
  request.ext_fields.set("clientId", instance_->client_id());
  const RemotingCommand answer = answer_from_client(request);
  ASSERT_EQ(answer.code, protocol::response_code::kSuccess) << answer.remark.value_or("");
  auto info = protocol::decode_consumer_running_info(protocol::body_text(answer));
  ASSERT_TRUE(info.is_ok()) << info.status().to_string();
  EXPECT_EQ(info->properties.at("consumerGroup"), "g");
  EXPECT_EQ(info->properties.at("PROP_CONSUME_TYPE"), "CONSUME_ACTIVELY");
  EXPECT_EQ(info->properties.at("autoCommit"), "false");
  EXPECT_FALSE(info->properties.contains("PROP_CONSUMEORDERLY"));  // push consumers only
  ASSERT_EQ(info->mq_table.size(), 1u);
  EXPECT_EQ(info->mq_table.at(kQ0).commit_offset, 3);
  EXPECT_TRUE(info->subscription_set.empty());  // assigned queues subscribe to nothing
}

TEST_F(LitePullConsumerTest, AnswersConsumerStatusWithItsOffsets) {
  const auto consumer = polled_and_committed_three();
  auto request = RemotingCommand::request(protocol::request_code::kGetConsumerStatusFromClient);
  request.ext_fields.set("topic", "T");
  request.ext_fields.set("group", "g");
  const RemotingCommand answer = answer_from_client(request);
  ASSERT_EQ(answer.code, protocol::response_code::kSuccess) << answer.remark.value_or("");
  EXPECT_EQ(protocol::body_text(answer),
            R"({"consumerTable":{},"messageQueueTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:3}})");
}

TEST_F(LitePullConsumerTest, StartsAtTheCommittedOffset) {
  for (int i = 0; i < 4; ++i) queues_.add(0, "A", std::to_string(i));
  queues_.set_committed(0, 2);
  auto consumer = make(config());
  ASSERT_TRUE(consumer->assign({kQ0}).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  EXPECT_EQ(bodies_of(poll_n(*consumer, 2), 0), (std::vector<std::string>{"2", "3"}));
}

TEST_F(LitePullConsumerTest, SeekRereadsAndMovesTheCommittedPosition) {
  for (int i = 0; i < 5; ++i) queues_.add(0, "A", std::to_string(i));
  auto consumer = make(config());
  ASSERT_TRUE(consumer->assign({kQ0}).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_EQ(poll_n(*consumer, 5).size(), 5u);

  ASSERT_TRUE(consumer->seek(kQ0, 3).is_ok());
  EXPECT_EQ(bodies_of(poll_n(*consumer, 2), 0), (std::vector<std::string>{"3", "4"}));
  ASSERT_TRUE(consumer->seek_to_begin(kQ0).is_ok());
  ASSERT_TRUE(consumer->commit().is_ok());
  EXPECT_EQ(queues_.committed()[0], 0);  // the sought offset, before anything was polled again
  EXPECT_EQ(bodies_of(poll_n(*consumer, 5), 0), (std::vector<std::string>{"0", "1", "2", "3", "4"}));

  ASSERT_TRUE(consumer->seek_to_end(kQ0).is_ok());
  ASSERT_TRUE(consumer->commit().is_ok());
  EXPECT_EQ(queues_.committed()[0], 5);
  EXPECT_TRUE(consumer->poll(milliseconds(100))->empty());

  const Status outside = consumer->seek(kQ0, 6);
  EXPECT_EQ(outside.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(outside.message().find("outside"), std::string::npos) << outside.to_string();
  const Status unowned = consumer->seek(kQ1, 0);
  EXPECT_EQ(unowned.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unowned.message().find("not owned"), std::string::npos) << unowned.to_string();
}

TEST_F(LitePullConsumerTest, OffsetForTimestampAndSeekToTimestamp) {
  for (int i = 0; i < 4; ++i) queues_.add(0, "A", std::to_string(i), 1000 * (i + 1));
  auto consumer = make(config());
  ASSERT_TRUE(consumer->assign({kQ0}).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  EXPECT_EQ(consumer->offset_for_timestamp(kQ0, 2500).value_or(-1), 2);
  ASSERT_TRUE(consumer->seek_to_timestamp(kQ0, 3000).is_ok());
  const auto got = poll_n(*consumer, 2);
  ASSERT_GE(got.size(), 1u);
  EXPECT_EQ(got.front().body(), "2");  // the seek drops what was pulled from 0
}

TEST_F(LitePullConsumerTest, PausedQueuesAreNotDeliveredUntilResumed) {
  for (int i = 0; i < 3; ++i) queues_.add(0, "A", "q0-" + std::to_string(i));
  for (int i = 0; i < 3; ++i) queues_.add(1, "A", "q1-" + std::to_string(i));
  auto consumer = make(config());
  ASSERT_TRUE(consumer->assign({kQ0, kQ1}).is_ok());
  ASSERT_TRUE(consumer->pause({kQ0}).is_ok());  // before start: paused from the first pull
  ASSERT_TRUE(consumer->start().is_ok());
  const auto first = poll_n(*consumer, 6, milliseconds(500));  // only q1's come, then the polls time out
  EXPECT_TRUE(bodies_of(first, 0).empty());
  EXPECT_EQ(bodies_of(first, 1).size(), 3u);

  ASSERT_TRUE(consumer->resume({kQ0}).is_ok());
  EXPECT_EQ(bodies_of(poll_n(*consumer, 3), 0), (std::vector<std::string>{"q0-0", "q0-1", "q0-2"}));

  // Pausing a queue whose messages are already buffered holds them back, and resuming lets them out.
  queues_.add(0, "A", "q0-3");
  std::this_thread::sleep_for(milliseconds(100));  // pulled into the buffer
  ASSERT_TRUE(consumer->pause({kQ0}).is_ok());
  EXPECT_TRUE(consumer->poll(milliseconds(100))->empty());
  ASSERT_TRUE(consumer->resume({kQ0}).is_ok());
  EXPECT_EQ(bodies_of(poll_n(*consumer, 1), 0), (std::vector<std::string>{"q0-3"}));

  EXPECT_EQ(consumer->pause({MessageQueue{"Other", "broker-a", 0}}).code(), StatusCode::kInvalidArgument);
}

TEST_F(LitePullConsumerTest, SubscribeRebalancesAndFiltersByTag) {
  for (int i = 0; i < 4; ++i) queues_.add(i % 2, i % 2 == 0 ? "A" : "B", std::to_string(i));
  auto consumer = make(config());
  ASSERT_TRUE(consumer->subscribe("T", "A").is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  const auto got = poll_n(*consumer, 2);
  EXPECT_EQ(bodies_of(got, 0), (std::vector<std::string>{"0", "2"}));
  EXPECT_TRUE(bodies_of(got, 1).empty());
  // q0's messages can arrive while the rebalance that takes q1 is still finishing.
  for (int i = 0; i < 1000 && consumer->assignment().size() < 2; ++i) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(consumer->assignment(), (std::set<MessageQueue>{kQ0, kQ1}));
  // Asked of the name server each time, as RocketMQ's fetchMessageQueues (the route is cached).
  const auto route_lookups = [this] { return cluster_.transport()->calls_with_code(rq::kGetRouteInfoByTopic).size(); };
  const std::size_t before = route_lookups();
  auto fetched = consumer->fetch_message_queues("T");
  ASSERT_TRUE(fetched.is_ok()) << fetched.status().to_string();
  EXPECT_EQ(*fetched, (std::vector<MessageQueue>{kQ0, kQ1}));
  // At least this one: the consumer's own route refresh may ask meanwhile (seen under TSan).
  EXPECT_GE(route_lookups(), before + 1);
}

// A SQL92 subscription is the broker's to filter: pulls carry the expression and its type, and the
// client-side tag filter lets every message through.
TEST_F(LitePullConsumerTest, SubscribeBySqlLeavesFilteringToTheBroker) {
  for (int i = 0; i < 4; ++i) queues_.add(0, i % 2 == 0 ? "A" : "B", std::to_string(i));
  auto consumer = make(config());
  EXPECT_EQ(consumer->subscribe("T", MessageSelector::by_sql("a >")).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(consumer->subscribe("T", MessageSelector::by_sql("TAGS = 'A' OR price > 3")).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  EXPECT_EQ(bodies_of(poll_n(*consumer, 4), 0), (std::vector<std::string>{"0", "1", "2", "3"}));
  const auto pulls = cluster_.transport()->calls_with_code(rq::kLitePullMessage);
  ASSERT_FALSE(pulls.empty());
  EXPECT_EQ(pulls.front().request.ext_fields.get("expressionType"), "SQL92");
  EXPECT_EQ(pulls.front().request.ext_fields.get("subscription"), "TAGS = 'A' OR price > 3");
}

TEST_F(LitePullConsumerTest, SubscribingAfterStartAddsTheTopicsQueues) {
  cluster_.add_topic("U", "broker-a", 1);
  queues_.add(0, "A", "0");
  auto consumer = make(config());
  ASSERT_TRUE(consumer->subscribe("T", "*").is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_TRUE(consumer->subscribe("U", "*").is_ok());
  const MessageQueue u0{"U", "broker-a", 0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!consumer->assignment().contains(u0) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(consumer->assignment(), (std::set<MessageQueue>{kQ0, kQ1, u0}));
  // The fake broker serves every topic from the same queues: U/0 holds "0" too.
  EXPECT_EQ(poll_n(*consumer, 2).size(), 2u);
}

// ---- unsubscribe -------------------------------------------------------------------------------

TEST_F(LitePullConsumerTest, UnsubscribeStopsPullingDropsTheBufferAndLeavesTheHeartbeat) {
  cluster_.add_topic("U", "broker-a", 1);
  const MessageQueue u0{"U", "broker-a", 0};
  for (int i = 0; i < 3; ++i) queues_.add(0, "A", "q0-" + std::to_string(i));
  for (int i = 0; i < 2; ++i) queues_.add(1, "A", "q1-" + std::to_string(i));
  auto consumer = make(config());
  ASSERT_TRUE(consumer->subscribe("T", "*").is_ok());
  ASSERT_TRUE(consumer->subscribe("U", "*").is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  // Nothing polled yet: T/0, T/1 and U/0 (the fake serves U/0 from queue 0 too) all get buffered.
  for (int i = 0; i < 500 && queues_.served() < 8; ++i) std::this_thread::sleep_for(milliseconds(10));
  ASSERT_EQ(queues_.served(), 8u);
  ASSERT_EQ(consumer->assignment(), (std::set<MessageQueue>{kQ0, kQ1, u0}));

  const auto pulls_of_u = [this] {
    std::size_t count = 0;
    for (const auto& call : cluster_.transport()->calls_with_code(rq::kLitePullMessage)) {
      if (call.request.ext_fields.get("topic") == "U") ++count;
    }
    return count;
  };
  const std::size_t heartbeats_before = cluster_.transport()->calls_with_code(rq::kHeartBeat).size();
  ASSERT_TRUE(consumer->unsubscribe("U").is_ok());
  EXPECT_EQ(consumer->assignment(), (std::set<MessageQueue>{kQ0, kQ1}));

  // A heartbeat went out at once, without U.
  ASSERT_GT(cluster_.transport()->calls_with_code(rq::kHeartBeat).size(), heartbeats_before);
  const auto heartbeat = cluster_.transport()->last_consumer_heartbeat();
  ASSERT_TRUE(heartbeat.is_ok()) << heartbeat.status().to_string();
  std::set<std::string> topics;
  for (const auto& subscription : heartbeat->subscription_data_set) topics.insert(subscription.topic);
  EXPECT_EQ(topics, std::set<std::string>{"T"});

  // U's buffered messages are gone: only T's five come out. U is pulled no more (a pull that had
  // already read U's position when it was unsubscribed may still go out).
  const std::size_t u_pulls = pulls_of_u();
  queues_.add(0, "A", "q0-3");
  const auto got = poll_n(*consumer, 7, milliseconds(1000));
  EXPECT_EQ(bodies_of(got, 0), (std::vector<std::string>{"q0-0", "q0-1", "q0-2", "q0-3"}));
  EXPECT_EQ(bodies_of(got, 1), (std::vector<std::string>{"q1-0", "q1-1"}));
  EXPECT_LE(pulls_of_u(), u_pulls + 1);
}

TEST_F(LitePullConsumerTest, UnsubscribeDropsAssignedQueuesOfTheTopic) {
  cluster_.add_topic("U", "broker-a", 1);
  const MessageQueue u0{"U", "broker-a", 0};
  auto consumer = make(config());
  EXPECT_EQ(consumer->unsubscribe("bad topic").code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(consumer->unsubscribe("Nothing").is_ok());  // neither subscribed nor assigned
  ASSERT_TRUE(consumer->assign({kQ0, u0}).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  EXPECT_EQ(consumer->assignment(), (std::set<MessageQueue>{kQ0, u0}));
  ASSERT_TRUE(consumer->unsubscribe("U").is_ok());
  EXPECT_EQ(consumer->assignment(), std::set<MessageQueue>{kQ0});
  EXPECT_EQ(consumer->pause({u0}).code(), StatusCode::kInvalidArgument);  // no longer a topic it consumes
  EXPECT_TRUE(consumer->pause({kQ0}).is_ok());
}

TEST_F(LitePullConsumerTest, UnsubscribingBeforeStartLeavesTheTopicOut) {
  cluster_.add_topic("U", "broker-a", 1);
  auto consumer = make(config());
  ASSERT_TRUE(consumer->subscribe("T", "*").is_ok());
  ASSERT_TRUE(consumer->subscribe("U", "*").is_ok());
  ASSERT_TRUE(consumer->unsubscribe("U").is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  for (int i = 0; i < 500 && consumer->assignment().size() < 2; ++i) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(consumer->assignment(), (std::set<MessageQueue>{kQ0, kQ1}));
  const auto heartbeats = cluster_.transport()->calls_with_code(rq::kHeartBeat);
  ASSERT_FALSE(heartbeats.empty());
  auto data = protocol::decode_heartbeat(protocol::body_text(heartbeats.back().request));
  ASSERT_TRUE(data.is_ok()) << data.status().to_string();
  ASSERT_EQ(data->consumer_data_set.size(), 1u);
  ASSERT_EQ(data->consumer_data_set[0].subscription_data_set.size(), 1u);
  EXPECT_EQ(data->consumer_data_set[0].subscription_data_set[0].topic, "T");
}

// ---- Topic queue change listener ---------------------------------------------------------------

TEST_F(LitePullConsumerTest, QueueChangeListenersHearOfChangedRoutes) {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::set<MessageQueue>>> calls;
  const auto recorder = [&](const std::string& topic, const std::set<MessageQueue>& queues) {
    std::lock_guard lock(mutex);
    calls.emplace_back(topic, queues);
  };
  const auto calls_so_far = [&] {
    std::lock_guard lock(mutex);
    return calls;
  };
  const auto route_lookups = [this] { return cluster_.transport()->calls_with_code(rq::kGetRouteInfoByTopic).size(); };
  ConsumerConfig settings = config();
  settings.topic_metadata_check_interval = milliseconds(20);
  auto consumer = make(settings);
  EXPECT_EQ(consumer->register_topic_message_queue_change_listener("T", nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(consumer->register_topic_message_queue_change_listener("bad topic", recorder).code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(consumer->register_topic_message_queue_change_listener("T", recorder).is_ok());  // before start
  ASSERT_TRUE(consumer->assign({kQ0}).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_TRUE(consumer->register_topic_message_queue_change_listener("V", recorder).is_ok());  // no route yet

  // Several checks look both topics up; T's queues are as at start, V has none: no call.
  const std::size_t lookups_at_start = route_lookups();
  for (int i = 0; i < 500 && route_lookups() < lookups_at_start + 6; ++i) std::this_thread::sleep_for(milliseconds(10));
  ASSERT_GE(route_lookups(), lookups_at_start + 6);
  EXPECT_TRUE(calls_so_far().empty());

  // T gets a queue on a second broker: the listener hears of all three, once.
  cluster_.add_broker("broker-b", "10.0.0.2:10911");
  cluster_.add_topic("T", "broker-b", 1);
  const MessageQueue b0{"T", "broker-b", 0};
  for (int i = 0; i < 500 && calls_so_far().empty(); ++i) std::this_thread::sleep_for(milliseconds(10));
  const std::size_t lookups_after_change = route_lookups();
  for (int i = 0; i < 500 && route_lookups() < lookups_after_change + 6; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  auto heard = calls_so_far();
  ASSERT_EQ(heard.size(), 1u);
  EXPECT_EQ(heard[0].first, "T");
  EXPECT_EQ(heard[0].second, (std::set<MessageQueue>{kQ0, kQ1, b0}));

  // V is created: its first route is a change.
  cluster_.add_topic("V", "broker-a", 2);
  for (int i = 0; i < 500 && calls_so_far().size() < 2; ++i) std::this_thread::sleep_for(milliseconds(10));
  heard = calls_so_far();
  ASSERT_EQ(heard.size(), 2u);
  EXPECT_EQ(heard[1].first, "V");
  EXPECT_EQ(heard[1].second,
            (std::set<MessageQueue>{MessageQueue{"V", "broker-a", 0}, MessageQueue{"V", "broker-a", 1}}));

  consumer->shutdown();
  EXPECT_EQ(consumer->register_topic_message_queue_change_listener("T", recorder).code(), StatusCode::kUnavailable);
}

TEST_F(LitePullConsumerTest, BroadcastingCommitsToTheLocalFile) {
  for (int i = 0; i < 3; ++i) queues_.add(0, "A", std::to_string(i));
  const auto dir =
      std::filesystem::temp_directory_path() / ("mqkit-lite-pull-test-offsets-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  ConsumerConfig settings = config();
  settings.message_model = MessageModel::kBroadcasting;
  settings.offset_store_dir = dir;
  {
    auto consumer = make(settings);
    ASSERT_TRUE(consumer->subscribe("T", "*").is_ok());
    ASSERT_TRUE(consumer->start().is_ok());
    ASSERT_EQ(poll_n(*consumer, 3).size(), 3u);
    ASSERT_TRUE(consumer->commit().is_ok());
    EXPECT_EQ(consumer->committed(kQ0).value_or(-9), 3);
    EXPECT_TRUE(queues_.committed().empty());  // nothing went to the broker
    EXPECT_TRUE(std::filesystem::exists(settings.local_offsets_file(instance_->client_id())));
  }
  {
    queues_.add(0, "A", "3");
    auto again = make(settings);
    ASSERT_TRUE(again->subscribe("T", "*").is_ok());
    ASSERT_TRUE(again->start().is_ok());
    EXPECT_EQ(bodies_of(poll_n(*again, 1), 0), (std::vector<std::string>{"3"}));
  }
  std::filesystem::remove_all(dir);
}

TEST_F(LitePullConsumerTest, BadUseGetsClearErrors) {
  auto consumer = make(config());
  EXPECT_EQ(consumer->poll(milliseconds(1)).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(consumer->start().code(), StatusCode::kInvalidArgument);  // neither subscribed nor assigned
  EXPECT_EQ(consumer->subscribe("T", "||").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(consumer->assign({MessageQueue{"T", "", 0}}).code(), StatusCode::kInvalidArgument);

  auto subscribed = make(config());
  ASSERT_TRUE(subscribed->subscribe("T", "*").is_ok());
  const Status both = subscribed->assign({kQ0});
  EXPECT_EQ(both.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(both.message().find("mutually exclusive"), std::string::npos);
  auto assigned = make(config());
  ASSERT_TRUE(assigned->assign({kQ0}).is_ok());
  EXPECT_EQ(assigned->subscribe("T", "*").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(assigned->fetch_message_queues("T").status().code(), StatusCode::kUnavailable);

  ASSERT_TRUE(assigned->start().is_ok());
  EXPECT_EQ(assigned->start().code(), StatusCode::kUnavailable);
  EXPECT_EQ(assigned->poll(milliseconds(-1)).status().code(), StatusCode::kInvalidArgument);
  assigned->shutdown();
  EXPECT_EQ(assigned->poll(milliseconds(1)).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(assigned->commit().code(), StatusCode::kUnavailable);
  EXPECT_EQ(assigned->seek(kQ0, 0).code(), StatusCode::kUnavailable);
}

// A pull answered after shutdown still holds the consumer's internals; they must not hold the
// client instance, or its threads outlive everyone who let go of it.
TEST_F(LitePullConsumerTest, ShutdownLetsGoOfTheClientInstance) {
  auto consumer = make(config());
  ASSERT_TRUE(consumer->assign({kQ0}).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  consumer->shutdown();
  const std::weak_ptr<ClientInstance> watched = instance_;
  instance_.reset();
  EXPECT_TRUE(watched.expired()) << "the shut-down consumer still holds its client instance";
}

TEST_F(LitePullConsumerTest, AutoCommitInPollAndAtShutdown) {
  for (int i = 0; i < 3; ++i) queues_.add(0, "A", std::to_string(i));
  ConsumerConfig settings = config();
  settings.auto_commit = true;
  settings.auto_commit_interval = milliseconds(50);
  auto consumer = make(settings);
  ASSERT_TRUE(consumer->assign({kQ0}).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_EQ(poll_n(*consumer, 3).size(), 3u);
  std::this_thread::sleep_for(milliseconds(60));
  (void)consumer->poll(milliseconds(1));  // due: commits what the earlier polls returned
  EXPECT_EQ(queues_.committed()[0], 3);

  queues_.add(0, "A", "3");
  ASSERT_EQ(poll_n(*consumer, 1).size(), 1u);
  consumer->shutdown();
  EXPECT_EQ(queues_.committed()[0], 4);
}

TEST_F(LitePullConsumerTest, ReassigningCommitsTheQueuesLeftOut) {
  for (int i = 0; i < 2; ++i) queues_.add(0, "A", std::to_string(i));
  ConsumerConfig settings = config();
  settings.auto_commit = true;
  auto consumer = make(settings);
  ASSERT_TRUE(consumer->assign({kQ0}).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  ASSERT_EQ(poll_n(*consumer, 2).size(), 2u);
  ASSERT_TRUE(consumer->assign({kQ1}).is_ok());
  EXPECT_EQ(queues_.committed()[0], 2);
  EXPECT_EQ(consumer->assignment(), (std::set<MessageQueue>{kQ1}));
}

TEST_F(LitePullConsumerTest, PullingStopsWhileTheBufferIsFull) {
  for (int i = 0; i < 40; ++i) queues_.add(i % 2, "A", std::to_string(i));
  ConsumerConfig settings = config();
  settings.pull_batch_size = 2;
  settings.pull_threshold_for_all = 4;
  auto consumer = make(settings);
  ASSERT_TRUE(consumer->assign({kQ0, kQ1}).is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  std::this_thread::sleep_for(milliseconds(300));
  // Each queue's loop may have one pull under way when the threshold is reached.
  EXPECT_LE(queues_.served(), 4u + 2u * 2u);
  EXPECT_GE(queues_.served(), 4u);
  EXPECT_EQ(poll_n(*consumer, 40).size(), 40u);  // and it resumes as poll drains the buffer
}

// ---- LitePullAssignment ----------------------------------------------------------------------

MessageExt message_at(std::int64_t offset) {
  MessageExt m;
  m.queue_offset = offset;
  return m;
}

TEST(LitePullAssignmentTest, StaleLoopsAndAnswersAreRecognized) {
  LitePullAssignment assignment;
  const std::uint64_t first = assignment.add(kQ0, std::make_shared<ProcessQueue>(), 10);
  EXPECT_EQ(assignment.add(kQ0, std::make_shared<ProcessQueue>(), 99), first);  // kept as it was
  EXPECT_EQ(assignment.position(kQ0, first)->pull_offset, 10);

  EXPECT_FALSE(assignment.accept(kQ0, first, 9, 12, {message_at(9)}));  // not where it pulls
  EXPECT_TRUE(assignment.accept(kQ0, first, 10, 12, {message_at(10), message_at(11)}));
  EXPECT_EQ(assignment.waiting_messages(), 2u);

  const auto sought = assignment.seek(kQ0, 3);
  ASSERT_TRUE(sought.has_value());
  EXPECT_FALSE(assignment.position(kQ0, first).has_value());       // the old loop ends
  EXPECT_FALSE(assignment.accept(kQ0, first, 12, 14, {message_at(12)}));
  EXPECT_EQ(assignment.waiting_messages(), 0u);                     // pulled before the seek: dropped
  EXPECT_EQ(assignment.poll_positions().at(kQ0), 3);
  EXPECT_EQ(assignment.position(kQ0, *sought)->pull_offset, 3);

  EXPECT_EQ(assignment.remove(kQ0), std::optional<std::int64_t>(3));
  EXPECT_FALSE(assignment.remove(kQ0).has_value());
  EXPECT_FALSE(assignment.seek(kQ0, 0).has_value());
}

TEST(LitePullAssignmentTest, TakeKeepsQueueOrderSkipsPausedAndEmptyAnswersMovePositions) {
  LitePullAssignment assignment;
  const auto e0 = assignment.add(kQ0, std::make_shared<ProcessQueue>(), 0);
  const auto e1 = assignment.add(kQ1, std::make_shared<ProcessQueue>(), 0);
  ASSERT_TRUE(assignment.accept(kQ0, e0, 0, 1, {message_at(0)}));
  ASSERT_TRUE(assignment.accept(kQ1, e1, 0, 1, {message_at(0)}));
  ASSERT_TRUE(assignment.accept(kQ0, e0, 1, 2, {message_at(1)}));
  assignment.pause({kQ0});
  const auto now = std::chrono::steady_clock::now;
  auto batch = assignment.take(now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->queue, kQ1);
  EXPECT_FALSE(assignment.take(now() + milliseconds(10)).has_value());  // only paused ones left

  const auto restarted = assignment.resume({kQ0, kQ1});
  EXPECT_EQ(restarted.size(), 1u);  // kQ1 was not paused
  const std::uint64_t e0_resumed = restarted.at(kQ0);
  EXPECT_FALSE(assignment.position(kQ0, e0).has_value());
  EXPECT_EQ(assignment.take(now())->messages.front().queue_offset, 0);
  EXPECT_EQ(assignment.poll_positions().at(kQ0), 1);
  // An empty answer while a batch still waits must not move the poll position past it.
  ASSERT_TRUE(assignment.accept(kQ0, e0_resumed, 2, 2, {}));
  EXPECT_EQ(assignment.poll_positions().at(kQ0), 1);
  EXPECT_EQ(assignment.take(now())->messages.front().queue_offset, 1);
  EXPECT_EQ(assignment.poll_positions().at(kQ0), 2);
  ASSERT_TRUE(assignment.accept(kQ0, e0_resumed, 2, 5, {}));  // e.g. everything filtered out
  EXPECT_EQ(assignment.poll_positions().at(kQ0), 5);

  assignment.close();
  EXPECT_FALSE(assignment.take(now() + std::chrono::seconds(10)).has_value());  // at once
}

// With a namespace the wire says ns1%T and ns1%g, while the application subscribes, polls,
// seeks, commits and watches T's queues by the names it knows.
TEST_F(LitePullConsumerTest, ANamespaceWrapsTheWireNamesAndTheApplicationSeesItsOwn) {
  cluster_.add_topic("ns1%T", "broker-a", 2);
  queues_.set_topic("ns1%T");
  for (int i = 0; i < 3; ++i) queues_.add(0, "A", "q0-" + std::to_string(i));
  ConsumerConfig settings = config();
  settings.client.name_space = "ns1";
  settings.topic_metadata_check_interval = milliseconds(20);
  auto consumer = make(settings);
  std::mutex mutex;
  std::vector<std::pair<std::string, std::set<MessageQueue>>> heard;
  ASSERT_TRUE(consumer
                  ->register_topic_message_queue_change_listener(
                      "T",
                      [&](const std::string& topic, const std::set<MessageQueue>& queues) {
                        std::lock_guard lock(mutex);
                        heard.emplace_back(topic, queues);
                      })
                  .is_ok());
  ASSERT_TRUE(consumer->subscribe("T", "*").is_ok());
  ASSERT_TRUE(consumer->start().is_ok());
  EXPECT_EQ(consumer->config().group, "ns1%g");

  const auto got = poll_n(*consumer, 3);
  ASSERT_EQ(got.size(), 3u);
  for (const auto& m : got) EXPECT_EQ(m.topic(), "T");
  // The rebalance may still be adding the empty queue 1.
  for (int i = 0; i < 500 && consumer->assignment().size() < 2; ++i) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(consumer->assignment(), (std::set<MessageQueue>{kQ0, kQ1}));
  EXPECT_EQ(consumer->fetch_message_queues("T").value_or(std::vector<MessageQueue>{}),
            (std::vector<MessageQueue>{kQ0, kQ1}));
  for (const auto& call : cluster_.transport()->calls_with_code(rq::kLitePullMessage)) {
    EXPECT_EQ(call.request.ext_fields.get("topic"), "ns1%T");
    EXPECT_EQ(call.request.ext_fields.get("consumerGroup"), "ns1%g");
  }

  ASSERT_TRUE(consumer->seek(kQ0, 1).is_ok());
  ASSERT_TRUE(consumer->commit().is_ok());
  EXPECT_EQ(queues_.committed()[0], 1);
  EXPECT_EQ(consumer->committed(kQ0).value_or(-9), 1);
  ASSERT_TRUE(consumer->commit({{kQ0, 2}}).is_ok());
  EXPECT_EQ(consumer->committed(kQ0).value_or(-9), 2);
  const auto updates = cluster_.transport()->calls_with_code(rq::kUpdateConsumerOffset);
  ASSERT_FALSE(updates.empty());
  for (const auto& call : updates) {
    EXPECT_EQ(call.request.ext_fields.get("topic"), "ns1%T");
    EXPECT_EQ(call.request.ext_fields.get("consumerGroup"), "ns1%g");
  }
  ASSERT_TRUE(consumer->pause({kQ0}).is_ok());
  ASSERT_TRUE(consumer->resume({kQ0}).is_ok());

  const auto heartbeat = cluster_.transport()->last_consumer_heartbeat();
  ASSERT_TRUE(heartbeat.is_ok()) << heartbeat.status().to_string();
  EXPECT_EQ(heartbeat->group_name, "ns1%g");
  ASSERT_EQ(heartbeat->subscription_data_set.size(), 1u);
  EXPECT_EQ(heartbeat->subscription_data_set[0].topic, "ns1%T");

  // The wire topic gets a queue on a second broker: the listener hears of T's three queues.
  cluster_.add_broker("broker-b", "10.0.0.2:10911");
  cluster_.add_topic("ns1%T", "broker-b", 1);
  const auto heard_so_far = [&] {
    std::lock_guard lock(mutex);
    return heard;
  };
  for (int i = 0; i < 500 && heard_so_far().empty(); ++i) std::this_thread::sleep_for(milliseconds(10));
  const auto calls = heard_so_far();
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls[0].first, "T");
  EXPECT_EQ(calls[0].second, (std::set<MessageQueue>{kQ0, kQ1, MessageQueue{"T", "broker-b", 0}}));
  consumer->shutdown();
}

}  // namespace
}  // namespace mqkit::client
