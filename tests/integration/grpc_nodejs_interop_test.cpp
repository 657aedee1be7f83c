// The official RocketMQ 5 gRPC Node.js client (rocketmq-client-nodejs) against mqproxy in front of
// real mqnamesrv + mqbroker processes. Its Producer sends; the test then reads back what the broker
// stored (pulls of every queue) and checks it against the receipts the client printed. Its
// SimpleConsumer receives, acks, lets messages come back and changes their invisible duration
// (RocketMQ 5's pop-based consumption); the test checks what it received against what was sent
// and stored, and what the broker then holds: the group's committed offsets, the dead-letter
// topic. Its transactional Producer commits and rolls back transactions, and leaves others open
// for the broker to check through the proxy (its checker decides); the test checks which messages
// reached the topic. The scenarios live in tests/interop/grpc-nodejs/scenarios.js; tools/test.sh
// installs the client there.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "local_cluster.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "remoting_client.hpp"
#include "tls_identity.hpp"

namespace mqkit::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const std::filesystem::path kScenarioDir = std::filesystem::path(MQKIT_SOURCE_DIR) / "tests/interop/grpc-nodejs";
constexpr int kQueues = 4;
constexpr std::int64_t kTimerPrecisionMs = 1000;  // the broker's default timer_precision_ms

std::int64_t wall_ms() {
  return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One message as the broker stored it in its topic.
struct StoredMessage {
  int queue_id = 0;
  std::int64_t queue_offset = 0;
  std::int64_t store_timestamp = 0;
  std::string body;
  std::map<std::string, std::string> properties;

  std::optional<std::string> property(const std::string& name) const {
    const auto it = properties.find(name);
    if (it == properties.end()) return std::nullopt;
    return it->second;
  }
};

// The scenario's "RESULT {json}" lines of one kind, in order.
std::vector<rapidjson::Document> results(const std::string& output, std::string_view kind) {
  std::vector<rapidjson::Document> out;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    constexpr std::string_view kPrefix = "RESULT ";
    if (!line.starts_with(kPrefix)) continue;
    rapidjson::Document doc;
    if (doc.Parse(line.c_str() + kPrefix.size()).HasParseError() || !doc.IsObject()) {
      ADD_FAILURE() << "a result line that is not a JSON object: " << line;
      continue;
    }
    if (doc.HasMember("kind") && doc["kind"].IsString() && kind == doc["kind"].GetString()) {
      out.push_back(std::move(doc));
    }
  }
  return out;
}

std::string text(const rapidjson::Value& object, const char* name) {
  return object.HasMember(name) && object[name].IsString() ? object[name].GetString() : std::string();
}
std::int64_t number(const rapidjson::Value& object, const char* name) {
  return object.HasMember(name) && object[name].IsInt64() ? object[name].GetInt64() : -1;
}
// object.a.b... ; null when a member on the way is missing or not an object.
const rapidjson::Value* member(const rapidjson::Value& object, std::initializer_list<const char*> path) {
  const rapidjson::Value* v = &object;
  for (const char* name : path) {
    if (!v->IsObject() || !v->HasMember(name)) return nullptr;
    v = &(*v)[name];
  }
  return v;
}
std::string json_text(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return buffer.GetString();
}
// The "keys" array of a result line, space-joined as the broker keeps KEYS.
std::string joined_keys(const rapidjson::Value& object) {
  std::string keys;
  if (!object.HasMember("keys") || !object["keys"].IsArray()) return keys;
  for (const auto& key : object["keys"].GetArray()) keys += (keys.empty() ? "" : " ") + std::string(key.GetString());
  return keys;
}

const StoredMessage* find_by_id(const std::vector<StoredMessage>& messages, const std::string& message_id) {
  const auto it = std::find_if(messages.begin(), messages.end(),
                               [&](const StoredMessage& m) { return m.property("UNIQ_KEY") == message_id; });
  return it == messages.end() ? nullptr : &*it;
}

class GrpcNodejsInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kScenarioDir / "node_modules/rocketmq-client-nodejs")) {
      if (std::getenv("MQKIT_REQUIRE_INTEROP") != nullptr) {
        FAIL() << "rocketmq-client-nodejs is not installed in " << kScenarioDir
               << " (run tools/test.sh, which installs it)";
      }
      GTEST_SKIP() << "rocketmq-client-nodejs not installed in " << kScenarioDir << "; tools/test.sh installs it";
    }
    cluster_ = std::make_unique<LocalCluster>(std::string("grpc-nodejs-") +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(cluster_->add_namesrv().is_ok());
    const auto broker = cluster_->add_broker({.name = "broker-a", .store = "commitlog", .overrides = broker_overrides()});
    ASSERT_TRUE(broker.is_ok()) << broker.to_string();
    // Consumer scenarios use invisible durations of 2 s, below the proxy's default minimum of 10 s
    // for a receive (RocketMQ 5's minInvisibleTimeMillsForRecv, which its own tests lower too).
    auto proxy_sets = proxy_overrides();
    proxy_sets.push_back("proxy.min_invisible_time=1s");
    // Push consumers' messages are held (auto_renew) with a short invisible time, so that the
    // push scenario sees them renewed.
    proxy_sets.insert(proxy_sets.end(), {"proxy.default_invisible_time=3s", "proxy.renew_ahead_time=2s",
                                         "proxy.renew_interval=200ms"});
    // A push consumer polls as long as its settings say, and its shutdown waits for that receive:
    // keep it below the scenarios' 10 s for a shutdown (RocketMQ's proxy says 20 s).
    proxy_sets.push_back("proxy.max_long_polling_time=4s");
    const auto proxy = cluster_->add_proxy(proxy_sets);
    ASSERT_TRUE(proxy.is_ok()) << proxy.to_string();
  }

  void TearDown() override { cluster_.reset(); }

  // Extra --set values of the broker and of the proxy.
  virtual std::vector<std::string> broker_overrides() const { return {}; }
  virtual std::vector<std::string> proxy_overrides() { return {}; }

  // Creates `topic` on the broker the way RocketMQ 5's admin tools do: UPDATE_AND_CREATE_TOPIC,
  // with the topic's accepted message type in the `attributes` field ("+message.type=FIFO"; none
  // for NORMAL, the type of a topic without the attribute). The proxy reads the type from the
  // broker's topic config, so the broker must keep it, as RocketMQ 5 does ("message.type").
  void create_topic(const std::string& topic, const std::string& message_type = {}) {
    auto create = make_request(protocol::request_code::kUpdateAndCreateTopic,
                               {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", std::to_string(kQueues)},
                                {"writeQueueNums", std::to_string(kQueues)}, {"perm", "6"},
                                {"topicFilterType", "SINGLE_TAG"}, {"topicSysFlag", "0"}, {"order", "false"}});
    if (!message_type.empty()) create.ext_fields.set("attributes", "+message.type=" + message_type);
    auto created = client_.call(cluster_->broker_addr(0), std::move(create));
    ASSERT_TRUE(created.is_ok() && created->code == protocol::response_code::kSuccess)
        << (created ? created->remark.value_or("") : created.status().to_string());
    if (!message_type.empty()) {
      auto config = client_.call(cluster_->broker_addr(0),
                                 make_request(protocol::request_code::kGetTopicConfig, {{"topic", topic}}));
      ASSERT_TRUE(config.is_ok() && config->code == protocol::response_code::kSuccess)
          << (config ? config->remark.value_or("") : config.status().to_string());
      const auto decoded = protocol::decode_topic_config(protocol::body_text(*config));
      ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
      const auto type = decoded->attributes.find("message.type");
      ASSERT_TRUE(type != decoded->attributes.end() && type->second == message_type)
          << "the broker did not keep the attribute +message.type=" << message_type
          << " of UPDATE_AND_CREATE_TOPIC; its config of " << topic << ": " << protocol::body_text(*config);
    }
    // Routes come from the name server: wait until the broker's registration of the topic is there.
    ASSERT_TRUE(eventually(
        [&] {
          auto route = client_.call(cluster_->namesrv_addr(0),
                                    make_request(protocol::request_code::kGetRouteInfoByTopic, {{"topic", topic}}));
          return route.is_ok() && route->code == protocol::response_code::kSuccess;
        },
        seconds(20)))
        << "the name server never routed " << topic;
  }

  // Creates consumer group `group` on the broker as RocketMQ 5's admin tools do:
  // UPDATE_AND_CREATE_SUBSCRIPTIONGROUP with a SubscriptionGroupConfig body. An orderly group
  // (consumeMessageOrderly) is what makes the proxy serve FIFO consumption. The broker must keep
  // both fields (GET_SUBSCRIPTIONGROUP_CONFIG shows them), as the proxy reads them from it.
  void create_group(const std::string& group, bool orderly, int retry_max_times) {
    auto create = make_request(protocol::request_code::kUpdateAndCreateSubscriptionGroup, {});
    protocol::set_body(create, R"({"groupName":")" + group + R"(","consumeEnable":true,"consumeMessageOrderly":)" +
                                   (orderly ? "true" : "false") +
                                   R"(,"retryMaxTimes":)" + std::to_string(retry_max_times) + "}");
    auto created = client_.call(cluster_->broker_addr(0), std::move(create));
    ASSERT_TRUE(created.is_ok() && created->code == protocol::response_code::kSuccess)
        << (created ? created->remark.value_or("") : created.status().to_string());
    auto config = client_.call(cluster_->broker_addr(0),
                               make_request(protocol::request_code::kGetSubscriptionGroupConfig, {{"group", group}}));
    ASSERT_TRUE(config.is_ok() && config->code == protocol::response_code::kSuccess)
        << (config ? config->remark.value_or("") : config.status().to_string());
    const std::string body(protocol::body_text(*config));
    rapidjson::Document doc;
    ASSERT_FALSE(doc.Parse(body.c_str()).HasParseError()) << body;
    const rapidjson::Value* kept_orderly = member(doc, {"consumeMessageOrderly"});
    EXPECT_EQ(kept_orderly != nullptr && kept_orderly->IsBool() && kept_orderly->GetBool(), orderly)
        << "the broker did not keep consumeMessageOrderly=" << orderly << " of " << group << ": " << body;
    const rapidjson::Value* kept_retries = member(doc, {"retryMaxTimes"});
    EXPECT_TRUE(kept_retries != nullptr && kept_retries->IsInt() && kept_retries->GetInt() == retry_max_times)
        << "the broker did not keep retryMaxTimes=" << retry_max_times << " of " << group << ": " << body;
  }

  // QUERY_CONSUMER_OFFSET: the offset `group` committed in one queue; -1 when the broker has none.
  std::int64_t committed_offset(const std::string& group, const std::string& topic, int queue) {
    auto r = client_.call(cluster_->broker_addr(0),
                          make_request(protocol::request_code::kQueryConsumerOffset,
                                       {{"consumerGroup", group}, {"topic", topic}, {"queueId", std::to_string(queue)}}));
    if (!r || r->code != protocol::response_code::kSuccess) return -1;
    const auto offset = r->ext_fields.get("offset");
    return offset ? std::stoll(std::string(*offset)) : -1;
  }
  // GET_MAX_OFFSET: the end of one queue; -1 when the call fails.
  std::int64_t max_offset(const std::string& topic, int queue) {
    auto r = client_.call(cluster_->broker_addr(0), make_request(protocol::request_code::kGetMaxOffset,
                                                                 {{"topic", topic}, {"queueId", std::to_string(queue)}}));
    if (!r || r->code != protocol::response_code::kSuccess) return -1;
    const auto offset = r->ext_fields.get("offset");
    return offset ? std::stoll(std::string(*offset)) : -1;
  }
  // Once every message of `topic` is acked, the group's committed offset in each queue reaches
  // the queue's end (a queue that never held a message may have no committed offset at all).
  void expect_offsets_at_the_end(const std::string& group, const std::string& topic) {
    std::string seen;
    const bool reached = eventually(
        [&] {
          seen.clear();
          bool all = true;
          for (int queue = 0; queue < kQueues; ++queue) {
            const std::int64_t end = max_offset(topic, queue);
            const std::int64_t committed = committed_offset(group, topic, queue);
            seen += " queue " + std::to_string(queue) + ": committed " + std::to_string(committed) + " of " +
                    std::to_string(end) + ";";
            all = all && end >= 0 && (committed == end || (end == 0 && committed <= 0));
          }
          return all;
        },
        seconds(15));
    EXPECT_TRUE(reached) << "the offsets " << group << " committed on the broker did not reach the end of " << topic
                         << " after every message was acked:" << seen << "\nproxy log:\n"
                         << cluster_->proxy(0).log_tail() << "\nbroker log:\n" << cluster_->broker(0).log_tail();
  }

  // Starts one scenario of scenarios.js against the proxy.
  void start_scenario(ChildProcess& node, const std::string& scenario, const std::string& topic,
                      const std::vector<std::string>& extra_args = {}) {
    std::vector<std::string> args{(kScenarioDir / "scenarios.js").string(), scenario, cluster_->proxy_addr(0), topic};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    auto spawned = ChildProcess::spawn("/usr/bin/node", args, "grpc-nodejs-node-" + scenario);
    ASSERT_TRUE(spawned.is_ok()) << spawned.status().to_string();
    node = std::move(spawned).value();
  }

  // Waits for the scenario's end; a failure shows its output and the proxy's and broker's logs.
  void finish_scenario(ChildProcess& node, std::string& output) {
    const auto status = node.wait_exit(seconds(150));
    output = node.output();
    ASSERT_TRUE(status.has_value()) << "node did not finish; its output:\n" << output << "\nits log:\n" << node.log_tail();
    ASSERT_EQ(*status, 0) << "scenario output:\n" << output << "\nnode log:\n" << node.log_tail()
                          << "\nproxy log:\n" << cluster_->proxy(0).log_tail()
                          << "\nbroker log:\n" << cluster_->broker(0).log_tail();
  }

  void run_scenario(const std::string& scenario, const std::string& topic, std::string& output,
                    const std::vector<std::string>& extra_args = {}) {
    ChildProcess node;
    ASSERT_NO_FATAL_FAILURE(start_scenario(node, scenario, topic, extra_args));
    ASSERT_NO_FATAL_FAILURE(finish_scenario(node, output));
  }

  // Every message of `topic` the broker holds, pulled queue by queue from offset 0.
  std::vector<StoredMessage> stored(const std::string& topic, int queues = kQueues) {
    std::vector<StoredMessage> out;
    for (int queue = 0; queue < queues; ++queue) {
      std::int64_t offset = 0;
      for (int pulls = 0; pulls < 100; ++pulls) {
        const auto records = client_.pull_records(cluster_->broker_addr(0), topic, queue, offset, "GrpcNodejsCheck");
        if (records.empty()) break;
        for (const auto& bytes : records) {
          const auto record = plugin::v1::decode_record(bytes);
          if (!record) {
            ADD_FAILURE() << record.status().to_string();
            continue;
          }
          StoredMessage m;
          m.queue_id = record->queue_id;
          m.queue_offset = record->queue_offset;
          m.store_timestamp = record->store_timestamp;
          m.body.assign(record->body.begin(), record->body.end());
          for (auto& [name, value] : plugin::v1::decode_properties(record->properties)) m.properties[name] = value;
          offset = record->queue_offset + 1;
          out.push_back(std::move(m));
        }
      }
    }
    return out;
  }

  // The messages of `topic`, once at least `count` are there (the consume queues are built just
  // after a send is answered).
  std::vector<StoredMessage> stored_at_least(const std::string& topic, std::size_t count) {
    std::vector<StoredMessage> messages;
    EXPECT_TRUE(eventually([&] {
      messages = stored(topic);
      return messages.size() >= count;
    }, seconds(10))) << "the broker holds " << messages.size() << " messages of " << topic << ", not " << count;
    return messages;
  }

  std::unique_ptr<LocalCluster> cluster_;
  RemotingClient client_;
};

// Normal messages: each receipt's messageId is a stored message's UNIQ_KEY, at the receipt's queue
// offset, with the tag (TAGS), the keys (KEYS, space-joined) and the user properties sent.
TEST_F(GrpcNodejsInteropTest, ProduceNormalMessagesWithTagKeysAndProperties) {
  const std::string topic = "GrpcNodejs_produce";
  ASSERT_NO_FATAL_FAILURE(create_topic(topic));
  std::string output;
  ASSERT_NO_FATAL_FAILURE(run_scenario("produce", topic, output));
  const auto receipts = results(output, "receipt");
  ASSERT_EQ(receipts.size(), 8u) << output;

  const auto messages = stored_at_least(topic, receipts.size());
  EXPECT_EQ(messages.size(), receipts.size()) << "the broker holds a different number of messages of " << topic
                                              << " than the client has receipts for";
  for (const auto& receipt : receipts) {
    const std::string id = text(receipt, "messageId");
    SCOPED_TRACE("message " + text(receipt, "body") + ", id " + id);
    const StoredMessage* m = find_by_id(messages, id);
    ASSERT_NE(m, nullptr) << "no stored message has UNIQ_KEY " << id;
    EXPECT_EQ(std::count_if(messages.begin(), messages.end(),
                            [&](const StoredMessage& other) { return other.property("UNIQ_KEY") == id; }),
              1);
    EXPECT_EQ(m->body, text(receipt, "body"));
    EXPECT_EQ(m->queue_offset, number(receipt, "offset")) << "the receipt's offset is not where the broker stored it";
    EXPECT_EQ(m->property("TAGS"), text(receipt, "tag"));
    ASSERT_TRUE(receipt.HasMember("keys") && receipt["keys"].IsArray() && receipt.HasMember("properties") &&
                receipt["properties"].IsObject());
    std::string keys;
    for (const auto& key : receipt["keys"].GetArray()) keys += (keys.empty() ? "" : " ") + std::string(key.GetString());
    EXPECT_EQ(m->property("KEYS"), keys);
    for (const auto& property : receipt["properties"].GetObject()) {
      EXPECT_EQ(m->property(property.name.GetString()), std::string(property.value.GetString()))
          << "user property " << property.name.GetString();
    }
  }
}

// FIFO messages of three groups, interleaved: each group's messages are in one queue, in the
// order they were sent, with the group as __SHARDINGKEY.
TEST_F(GrpcNodejsInteropTest, FifoMessagesOfAGroupShareAQueueInSendOrder) {
  const std::string topic = "GrpcNodejs_fifo";
  ASSERT_NO_FATAL_FAILURE(create_topic(topic, "FIFO"));
  std::string output;
  ASSERT_NO_FATAL_FAILURE(run_scenario("fifo", topic, output));
  const auto receipts = results(output, "receipt");
  ASSERT_EQ(receipts.size(), 12u) << output;

  const auto messages = stored_at_least(topic, receipts.size());
  EXPECT_EQ(messages.size(), receipts.size()) << "the broker holds a different number of messages of " << topic
                                              << " than the client has receipts for";
  std::map<std::string, std::vector<const StoredMessage*>> by_group;  // in send order
  for (const auto& receipt : receipts) {
    const std::string id = text(receipt, "messageId");
    const std::string group = text(receipt, "group");
    SCOPED_TRACE("message " + text(receipt, "body") + ", id " + id);
    const StoredMessage* m = find_by_id(messages, id);
    ASSERT_NE(m, nullptr) << "no stored message has UNIQ_KEY " << id;
    EXPECT_EQ(m->body, text(receipt, "body"));
    EXPECT_EQ(m->property("__SHARDINGKEY"), group);
    EXPECT_EQ(m->queue_offset, number(receipt, "offset")) << "the receipt's offset is not where the broker stored it";
    by_group[group].push_back(m);
  }
  ASSERT_EQ(by_group.size(), 3u);
  for (const auto& [group, sent] : by_group) {
    SCOPED_TRACE("group " + group);
    for (const StoredMessage* m : sent) {
      EXPECT_EQ(m->queue_id, sent.front()->queue_id) << m->body << " is not in the queue of " << sent.front()->body;
    }
    for (std::size_t i = 1; i < sent.size(); ++i) {
      EXPECT_LT(sent[i - 1]->queue_offset, sent[i]->queue_offset)
          << sent[i]->body << " is stored before " << sent[i - 1]->body << ", which was sent first";
    }
  }
}

// A message with a delivery time 4 s ahead: not in its topic before that time (less the broker's
// timer precision), there after it with TIMER_DELIVER_MS as the client asked.
TEST_F(GrpcNodejsInteropTest, DelayMessageIsHeldUntilItsDeliveryTime) {
  const std::string topic = "GrpcNodejs_delay";
  ASSERT_NO_FATAL_FAILURE(create_topic(topic, "DELAY"));
  ChildProcess node;
  ASSERT_NO_FATAL_FAILURE(start_scenario(node, "delay", topic, {"4000"}));
  // The receipt is printed before the client shuts down: look while the message must still wait.
  std::vector<rapidjson::Document> receipts;
  (void)eventually([&] {
    receipts = results(node.output(), "receipt");
    return !receipts.empty() || !node.running();
  }, seconds(60));
  ASSERT_EQ(receipts.size(), 1u) << "no receipt from the delay scenario; its output:\n" << node.output()
                                 << "\nnode log:\n" << node.log_tail() << "\nproxy log:\n"
                                 << cluster_->proxy(0).log_tail();
  const std::string id = text(receipts[0], "messageId");
  const std::int64_t deliver_at = number(receipts[0], "deliveryTimestamp");
  ASSERT_LT(wall_ms(), deliver_at - kTimerPrecisionMs) << "too slow to look before the delivery time";
  EXPECT_EQ(find_by_id(stored(topic), id), nullptr) << "the message was in its topic right after the send";
  while (wall_ms() < deliver_at - kTimerPrecisionMs - 300) std::this_thread::sleep_for(milliseconds(100));
  if (wall_ms() < deliver_at - kTimerPrecisionMs) {
    EXPECT_EQ(find_by_id(stored(topic), id), nullptr) << "the message was delivered before its time";
  }
  std::string output;
  ASSERT_NO_FATAL_FAILURE(finish_scenario(node, output));

  std::vector<StoredMessage> messages;
  const StoredMessage* delivered = nullptr;
  ASSERT_TRUE(eventually([&] {
    messages = stored(topic);
    delivered = find_by_id(messages, id);
    return delivered != nullptr;
  }, seconds(20))) << "the message never reached its topic; broker log:\n" << cluster_->broker(0).log_tail();
  EXPECT_GE(delivered->store_timestamp, deliver_at - kTimerPrecisionMs);
  EXPECT_EQ(delivered->body, text(receipts[0], "body"));
  EXPECT_EQ(delivered->property("TAGS"), "Delay");
  EXPECT_EQ(delivered->property("KEYS"), "delay-key");
  EXPECT_EQ(delivered->property("TIMER_DELIVER_MS"), std::to_string(deliver_at));
  EXPECT_TRUE(delivered->property("TIMER_OUT_MS").has_value()) << "the message did not go through the timer";
  EXPECT_EQ(messages.size(), 1u);
}

// A topic nobody created: the client's startup and its send both fail with TOPIC_NOT_FOUND from
// the proxy (the scenario passes when they do), and the broker did not create the topic.
TEST_F(GrpcNodejsInteropTest, UnknownTopicFailsWithTopicNotFound) {
  const std::string topic = "GrpcNodejs_no_such_topic";
  std::string output;
  ASSERT_NO_FATAL_FAILURE(run_scenario("unknown_topic", topic, output));
  EXPECT_EQ(results(output, "startup_error").size(), 1u) << output;
  EXPECT_EQ(results(output, "send_error").size(), 1u) << output;
  auto config = client_.call(cluster_->broker_addr(0),
                             make_request(protocol::request_code::kGetTopicConfig, {{"topic", topic}}));
  ASSERT_TRUE(config.is_ok()) << config.status().to_string();
  EXPECT_EQ(config->code, protocol::response_code::kTopicNotExist)
      << "the broker has a config of " << topic << ": " << protocol::body_text(*config);
}

// The official PushConsumer (auto_renew receives through QueryAssignment's queues): every message
// consumed successfully once, the failed first delivery back with attempt 2 after the retry
// backoff, each message taking 4 s in the listener, longer than the proxy's invisible time of 3 s
// here (it holds them meanwhile), and the group's offsets at the end of the topic.
TEST_F(GrpcNodejsInteropTest, PushConsumerConsumesEachMessageOnceWhileTheProxyHoldsThem) {
  const std::string topic = "GrpcNodejs_push";
  const std::string group = "GrpcNodejsPushGroup";
  ASSERT_NO_FATAL_FAILURE(create_topic(topic));
  ASSERT_NO_FATAL_FAILURE(create_group(group, false, 16));
  std::string output;
  ASSERT_NO_FATAL_FAILURE(run_scenario("push_consume", topic, output, {group, "3", "4000"}));
  EXPECT_EQ(results(output, "push_message").size(), 4u) << output;
  ASSERT_NO_FATAL_FAILURE(expect_offsets_at_the_end(group, topic));
}

// What the proxy's Settings for a SIMPLE_CONSUMER said (the scenario's "consumer_settings" line):
// subscription.fifo and the backoff policy's max_attempts, which RocketMQ 5's proxy takes from the
// group (consume_message_orderly; retry_max_times + 1).
void expect_consumer_settings(const std::string& output, bool fifo, int max_attempts) {
  const auto lines = results(output, "consumer_settings");
  ASSERT_EQ(lines.size(), 1u) << output;
  const rapidjson::Value* settings = member(lines[0], {"settings"});
  ASSERT_NE(settings, nullptr) << output;
  const rapidjson::Value* issued_fifo = member(*settings, {"subscription", "fifo"});
  EXPECT_EQ(issued_fifo != nullptr && issued_fifo->IsBool() && issued_fifo->GetBool(), fifo)
      << "Settings.subscription.fifo of the group: " << json_text(*settings);
  const rapidjson::Value* attempts = member(*settings, {"backoffPolicy", "maxAttempts"});
  EXPECT_TRUE(attempts != nullptr && attempts->IsInt() && attempts->GetInt() == max_attempts)
      << "Settings.backoff_policy.max_attempts should be the group's retryMaxTimes + 1 = " << max_attempts << ": "
      << json_text(*settings);
}

// A SimpleConsumer of a group that is not orderly receives every message produced, once each,
// with delivery attempt 1 and what was sent (body, tag, keys, user properties) at the queue and
// offset the broker stored it; it acks each, none comes back, and the group's committed offsets
// reach the end of every queue. QueryAssignment gives the group one queue per broker, id -1.
TEST_F(GrpcNodejsInteropTest, SimpleConsumerReceivesEachMessageOnceAndItsAcksMoveTheGroupsOffsets) {
  const std::string topic = "GrpcNodejs_simple_consume";
  const std::string group = "GrpcNodejsSimpleGroup";
  ASSERT_NO_FATAL_FAILURE(create_topic(topic));
  ASSERT_NO_FATAL_FAILURE(create_group(group, false, 3));
  std::string output;
  ASSERT_NO_FATAL_FAILURE(run_scenario("simple_consume", topic, output, {group, "8"}));
  ASSERT_NO_FATAL_FAILURE(expect_consumer_settings(output, false, 4));
  const auto assignments = results(output, "assignments");
  ASSERT_EQ(assignments.size(), 1u) << output;
  const rapidjson::Value* assigned = member(assignments[0], {"assignments"});
  ASSERT_TRUE(assigned != nullptr && assigned->IsArray()) << output;
  ASSERT_EQ(assigned->Size(), 1u) << "one broker, one assignment: " << json_text(*assigned);
  EXPECT_EQ(number((*assigned)[0], "queueId"), -1) << json_text(*assigned);
  EXPECT_EQ(text((*assigned)[0], "broker"), "broker-a") << json_text(*assigned);

  const auto receipts = results(output, "receipt");
  const auto received = results(output, "message");
  ASSERT_EQ(receipts.size(), 8u) << output;
  ASSERT_EQ(received.size(), receipts.size()) << output;
  const auto messages = stored_at_least(topic, receipts.size());
  std::set<std::string> ids;
  for (const auto& m : received) {
    const std::string id = text(m, "messageId");
    SCOPED_TRACE("received message " + id);
    EXPECT_TRUE(ids.insert(id).second) << "received twice";
    const auto receipt = std::find_if(receipts.begin(), receipts.end(),
                                      [&](const rapidjson::Document& r) { return text(r, "messageId") == id; });
    ASSERT_NE(receipt, receipts.end()) << "never sent";
    EXPECT_EQ(text(m, "topic"), topic);
    EXPECT_EQ(text(m, "body"), text(*receipt, "body"));
    EXPECT_EQ(text(m, "tag"), text(*receipt, "tag"));
    EXPECT_EQ(joined_keys(m), joined_keys(*receipt));
    const rapidjson::Value* sent_properties = member(*receipt, {"properties"});
    const rapidjson::Value* got_properties = member(m, {"properties"});
    ASSERT_TRUE(sent_properties != nullptr && got_properties != nullptr);
    EXPECT_EQ(json_text(*got_properties), json_text(*sent_properties)) << "user properties";
    EXPECT_EQ(number(m, "deliveryAttempt"), 1);
    const StoredMessage* s = find_by_id(messages, id);
    ASSERT_NE(s, nullptr) << "no stored message has UNIQ_KEY " << id;
    EXPECT_EQ(number(m, "queueId"), s->queue_id) << "the queue the proxy reports is not where the broker stored it";
    EXPECT_EQ(number(m, "queueOffset"), s->queue_offset) << "the queue offset the proxy reports is not the stored one";
  }
  EXPECT_EQ(results(output, "ack").size(), receipts.size()) << output;
  expect_offsets_at_the_end(group, topic);
}

// A message received with a 2 s invisible duration and not acked comes back after it with the
// same id and delivery attempt 2; acked then, it stays acked. The topic itself still holds it once.
TEST_F(GrpcNodejsInteropTest, UnackedMessageComesBackWithTheNextDeliveryAttempt) {
  const std::string topic = "GrpcNodejs_redelivery";
  const std::string group = "GrpcNodejsRedeliveryGroup";
  ASSERT_NO_FATAL_FAILURE(create_topic(topic));
  ASSERT_NO_FATAL_FAILURE(create_group(group, false, 16));
  std::string output;
  ASSERT_NO_FATAL_FAILURE(run_scenario("redelivery", topic, output, {group, "2000"}));
  ASSERT_NO_FATAL_FAILURE(expect_consumer_settings(output, false, 17));
  const auto receipts = results(output, "receipt");
  const auto deliveries = results(output, "delivery");
  ASSERT_EQ(receipts.size(), 1u) << output;
  ASSERT_EQ(deliveries.size(), 2u) << output;
  const std::string id = text(receipts[0], "messageId");
  for (std::size_t i = 0; i < deliveries.size(); ++i) {
    EXPECT_EQ(text(deliveries[i], "messageId"), id);
    EXPECT_EQ(number(deliveries[i], "deliveryAttempt"), static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(text(deliveries[i], "body"), text(receipts[0], "body"));
  }
  EXPECT_GE(number(deliveries[1], "afterMs"), 2000);
  const auto messages = stored_at_least(topic, 1);
  EXPECT_EQ(messages.size(), 1u) << "the redelivery added a message to " << topic;
  expect_offsets_at_the_end(group, topic);
}

// ChangeInvisibleDuration from 2 s to 10 s keeps a received message from coming back when the
// 2 s are over, and the receipt handle it answers acks the message.
TEST_F(GrpcNodejsInteropTest, ChangedInvisibleDurationHoldsAMessageAndItsNewReceiptHandleAcksIt) {
  const std::string topic = "GrpcNodejs_change_invisible";
  const std::string group = "GrpcNodejsChangeInvisibleGroup";
  ASSERT_NO_FATAL_FAILURE(create_topic(topic));
  ASSERT_NO_FATAL_FAILURE(create_group(group, false, 16));
  std::string output;
  ASSERT_NO_FATAL_FAILURE(run_scenario("change_invisible", topic, output, {group, "2000", "10000"}));
  const auto receipts = results(output, "receipt");
  ASSERT_EQ(receipts.size(), 1u) << output;
  ASSERT_EQ(results(output, "delivery").size(), 1u) << output;
  ASSERT_EQ(results(output, "changed").size(), 1u) << output;
  const auto acks = results(output, "ack");
  ASSERT_EQ(acks.size(), 1u) << output;
  EXPECT_EQ(text(acks[0], "messageId"), text(receipts[0], "messageId"));
  expect_offsets_at_the_end(group, topic);
}

// An orderly group (consumeMessageOrderly) on a FIFO topic: the proxy's Settings say fifo,
// QueryAssignment gives one assignment per queue, and the messages of each message group arrive
// in the order they were sent, the next ones only once the earlier ones are acked.
TEST_F(GrpcNodejsInteropTest, OrderlyGroupReceivesEachMessageGroupInSendOrder) {
  const std::string topic = "GrpcNodejs_fifo_consume";
  const std::string group = "GrpcNodejsOrderlyGroup";
  ASSERT_NO_FATAL_FAILURE(create_topic(topic, "FIFO"));
  ASSERT_NO_FATAL_FAILURE(create_group(group, true, 16));
  std::string output;
  ASSERT_NO_FATAL_FAILURE(run_scenario("fifo_consume", topic, output, {group, "4"}));
  ASSERT_NO_FATAL_FAILURE(expect_consumer_settings(output, true, 17));
  const auto assignments = results(output, "assignments");
  ASSERT_EQ(assignments.size(), 1u) << output;
  const rapidjson::Value* assigned = member(assignments[0], {"assignments"});
  ASSERT_TRUE(assigned != nullptr && assigned->IsArray()) << output;
  std::set<std::int64_t> queues;
  for (const auto& a : assigned->GetArray()) queues.insert(number(a, "queueId"));
  EXPECT_EQ(queues, (std::set<std::int64_t>{0, 1, 2, 3})) << "an orderly group is assigned each queue: "
                                                          << json_text(*assigned);

  const auto receipts = results(output, "receipt");
  const auto received = results(output, "message");
  ASSERT_EQ(receipts.size(), 12u) << output;
  ASSERT_EQ(received.size(), receipts.size()) << output;
  std::map<std::string, std::vector<std::string>> sent_order, received_order;  // message group -> bodies
  for (const auto& r : receipts) sent_order[text(r, "group")].push_back(text(r, "body"));
  for (const auto& m : received) received_order[text(m, "messageGroup")].push_back(text(m, "body"));
  EXPECT_EQ(received_order, sent_order);
  expect_offsets_at_the_end(group, topic);
}

// A group with retryMaxTimes 1: a message never acked is delivered twice (attempts 1 and 2, the
// Settings' max_attempts), then goes to the group's dead-letter topic %DLQ%<group>, where the
// broker holds it with its id and body.
TEST_F(GrpcNodejsInteropTest, MessageBeyondTheRetryLimitGoesToTheDeadLetterTopic) {
  const std::string topic = "GrpcNodejs_dead_letter";
  const std::string group = "GrpcNodejsDeadLetterGroup";
  ASSERT_NO_FATAL_FAILURE(create_topic(topic));
  ASSERT_NO_FATAL_FAILURE(create_group(group, false, 1));
  std::string output;
  ASSERT_NO_FATAL_FAILURE(run_scenario("dead_letter", topic, output, {group, "2", "2000"}));
  ASSERT_NO_FATAL_FAILURE(expect_consumer_settings(output, false, 2));
  const auto receipts = results(output, "receipt");
  const auto deliveries = results(output, "delivery");
  ASSERT_EQ(receipts.size(), 1u) << output;
  ASSERT_EQ(deliveries.size(), 2u) << output;
  const std::string id = text(receipts[0], "messageId");
  for (std::size_t i = 0; i < deliveries.size(); ++i) {
    EXPECT_EQ(text(deliveries[i], "messageId"), id);
    EXPECT_EQ(number(deliveries[i], "deliveryAttempt"), static_cast<std::int64_t>(i + 1));
  }
  const std::string dlq = "%DLQ%" + group;
  std::vector<StoredMessage> dead;
  const StoredMessage* m = nullptr;
  const bool arrived = eventually(
      [&] {
        dead = stored(dlq);
        m = find_by_id(dead, id);
        return m != nullptr;
      },
      seconds(20));
  auto config = client_.call(cluster_->broker_addr(0),
                             make_request(protocol::request_code::kGetTopicConfig, {{"topic", dlq}}));
  ASSERT_TRUE(arrived) << "message " << id << " is not in " << dlq << " (" << dead.size()
                       << " messages there; its topic config: "
                       << (config ? std::string(protocol::body_text(*config)) + " " + config->remark.value_or("")
                                  : config.status().to_string())
                       << ")\nscenario output:\n" << output << "\nproxy log:\n" << cluster_->proxy(0).log_tail()
                       << "\nbroker log:\n" << cluster_->broker(0).log_tail();
  EXPECT_EQ(m->body, text(receipts[0], "body"));
  EXPECT_EQ(m->property("TAGS"), "DeadLetter");
  EXPECT_EQ(std::count_if(dead.begin(), dead.end(), [&](const StoredMessage& d) { return d.property("UNIQ_KEY") == id; }),
            1)
      << "the message went to " << dlq << " more than once";
}

// Transactional messages, on a broker that checks a transaction left open for 1 s, every 1 s
// (RocketMQ's transactionTimeOut and transactionCheckInterval, lowered as its own tests do).
class GrpcNodejsTransactionTest : public GrpcNodejsInteropTest {
 protected:
  std::vector<std::string> broker_overrides() const override {
    return {"broker.transaction_time_out=1s", "broker.transaction_check_interval=1s"};
  }

  // The scenario's "receipt" line of the message whose transaction was to end with `resolution`.
  static const rapidjson::Document* receipt_of(const std::vector<rapidjson::Document>& receipts,
                                               const std::string& resolution) {
    const auto it = std::find_if(receipts.begin(), receipts.end(),
                                 [&](const rapidjson::Document& r) { return text(r, "resolution") == resolution; });
    return it == receipts.end() ? nullptr : &*it;
  }

  // A committed message reaches its topic once, as it was sent: the body, the tag (TAGS), the keys
  // (KEYS), the user properties, and none of the half message's REAL_TOPIC / REAL_QID.
  void expect_committed(const std::string& topic, const rapidjson::Value& receipt, const std::string& output) {
    const std::string id = text(receipt, "messageId");
    SCOPED_TRACE("committed message " + text(receipt, "body") + ", id " + id);
    std::vector<StoredMessage> messages;
    const StoredMessage* m = nullptr;
    ASSERT_TRUE(eventually(
        [&] {
          messages = stored(topic);
          m = find_by_id(messages, id);
          return m != nullptr;
        },
        seconds(15)))
        << "the committed message never reached " << topic << " (" << messages.size()
        << " messages there); scenario output:\n" << output << "\nproxy log:\n" << cluster_->proxy(0).log_tail()
        << "\nbroker log:\n" << cluster_->broker(0).log_tail();
    EXPECT_EQ(m->body, text(receipt, "body"));
    EXPECT_EQ(m->property("TAGS"), text(receipt, "tag"));
    EXPECT_EQ(m->property("KEYS"), joined_keys(receipt));
    const rapidjson::Value* properties = member(receipt, {"properties"});
    ASSERT_TRUE(properties != nullptr && properties->IsObject()) << json_text(receipt);
    for (const auto& property : properties->GetObject()) {
      EXPECT_EQ(m->property(property.name.GetString()), std::string(property.value.GetString()))
          << "user property " << property.name.GetString();
    }
    EXPECT_FALSE(m->property("REAL_TOPIC").has_value()) << "the committed message kept the half message's REAL_TOPIC";
    EXPECT_FALSE(m->property("REAL_QID").has_value()) << "the committed message kept the half message's REAL_QID";
    EXPECT_EQ(std::count_if(messages.begin(), messages.end(),
                            [&](const StoredMessage& other) { return other.property("UNIQ_KEY") == id; }),
              1)
        << "the committed message is in " << topic << " more than once";
  }

  // A rolled back message never reaches its topic: not now, nor during the next `watch`.
  void expect_never_stored(const std::string& topic, const rapidjson::Value& receipt, std::chrono::milliseconds watch) {
    const std::string id = text(receipt, "messageId");
    const auto until = std::chrono::steady_clock::now() + watch;
    do {
      const auto messages = stored(topic);
      const StoredMessage* m = find_by_id(messages, id);
      ASSERT_EQ(m, nullptr) << "the rolled back message " << text(receipt, "body") << " (id " << id << ") is in "
                            << topic << " at queue " << m->queue_id << ", offset " << m->queue_offset
                            << "\nbroker log:\n" << cluster_->broker(0).log_tail();
      std::this_thread::sleep_for(milliseconds(500));
    } while (std::chrono::steady_clock::now() < until);
  }
};

// Two transactions of one message each, ended by the client right after the send: the committed
// message is in the topic (its UNIQ_KEY the receipt's messageId, with what was sent), the rolled
// back one never shows up, and the broker checks neither (the scenario stays up past the
// transaction timeout and check interval, and fails on a check).
TEST_F(GrpcNodejsTransactionTest, CommittedTransactionIsStoredAndRolledBackOneNever) {
  const std::string topic = "GrpcNodejs_transaction";
  ASSERT_NO_FATAL_FAILURE(create_topic(topic, "TRANSACTION"));
  std::string output;
  ASSERT_NO_FATAL_FAILURE(run_scenario("transaction", topic, output));
  const auto receipts = results(output, "receipt");
  ASSERT_EQ(receipts.size(), 2u) << output;
  const rapidjson::Document* committed = receipt_of(receipts, "COMMIT");
  const rapidjson::Document* rolled_back = receipt_of(receipts, "ROLLBACK");
  ASSERT_TRUE(committed != nullptr && rolled_back != nullptr) << output;
  EXPECT_TRUE(results(output, "check").empty()) << output;
  ASSERT_NO_FATAL_FAILURE(expect_committed(topic, *committed, output));
  ASSERT_NO_FATAL_FAILURE(expect_never_stored(topic, *rolled_back, seconds(3)));
  EXPECT_EQ(stored(topic).size(), 1u) << "the topic holds more than the committed message";
}

// Two transactions the client never ends: the broker checks them after its transaction timeout,
// the proxy sends the checks to the producer over its telemetry stream, and the producer's checker
// answers (EndTransaction, source SERVER_CHECK): COMMIT for one message, ROLLBACK for the other.
// Until the check, neither message is in the topic; after it, the COMMIT one is, once, and the
// ROLLBACK one never.
TEST_F(GrpcNodejsTransactionTest, OrphanTransactionsEndAsTheProducersCheckerSays) {
  const std::string topic = "GrpcNodejs_orphan_transaction";
  ASSERT_NO_FATAL_FAILURE(create_topic(topic, "TRANSACTION"));
  ChildProcess node;
  ASSERT_NO_FATAL_FAILURE(start_scenario(node, "orphan_transaction", topic, {"30000"}));
  // Between the sends and the first check, nothing of either transaction is in the topic. The
  // checker prints its "check" line before the client answers the check: when none shows after
  // the pull, the pull came before any EndTransaction.
  std::vector<rapidjson::Document> receipts;
  (void)eventually([&] {
    receipts = results(node.output(), "receipt");
    return receipts.size() >= 2 || !node.running();
  }, seconds(60));
  if (receipts.size() == 2) {
    const auto early = stored(topic);
    if (results(node.output(), "check").empty()) {
      EXPECT_TRUE(early.empty()) << "before any check, " << early.size() << " message(s) of transactions nobody ended are in "
                                 << topic << ": the first has UNIQ_KEY " << early.front().property("UNIQ_KEY").value_or("");
    }
  }
  std::string output;
  ASSERT_NO_FATAL_FAILURE(finish_scenario(node, output));
  receipts = results(output, "receipt");
  ASSERT_EQ(receipts.size(), 2u) << output;
  const rapidjson::Document* committed = receipt_of(receipts, "COMMIT");
  const rapidjson::Document* rolled_back = receipt_of(receipts, "ROLLBACK");
  ASSERT_TRUE(committed != nullptr && rolled_back != nullptr) << output;
  std::set<std::string> checked;
  for (const auto& check : results(output, "check")) checked.insert(text(check, "messageId"));
  EXPECT_EQ(checked, (std::set<std::string>{text(*committed, "messageId"), text(*rolled_back, "messageId")}))
      << "the checker should have been asked about both messages, and only them:\n" << output;
  ASSERT_NO_FATAL_FAILURE(expect_committed(topic, *committed, output));
  ASSERT_NO_FATAL_FAILURE(expect_never_stored(topic, *rolled_back, seconds(3)));
  EXPECT_EQ(stored(topic).size(), 1u) << "the topic holds more than the committed message";
}

// Environment variables scenarios.js reads (the account the Node.js client signs with, TLS),
// set while the object lives; an empty value is left unset.
class ScopedNodeEnvironment {
 public:
  ScopedNodeEnvironment(std::initializer_list<std::pair<std::string, std::string>> variables) {
    for (const auto& [name, value] : variables) {
      names_.push_back(name);
      if (!value.empty()) ::setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~ScopedNodeEnvironment() {
    for (const auto& name : names_) ::unsetenv(name.c_str());
  }
  ScopedNodeEnvironment(const ScopedNodeEnvironment&) = delete;
  ScopedNodeEnvironment& operator=(const ScopedNodeEnvironment&) = delete;

 private:
  std::vector<std::string> names_;
};

// mqproxy with acl_enable: the client signs each call (sessionCredentials), and the proxy checks
// its signature and its account's permissions on the topics and groups each call names.
class GrpcNodejsAclTest : public GrpcNodejsInteropTest {
 protected:
  static constexpr const char* kTopic = "GrpcNodejs_acl";
  static constexpr const char* kGroup = "GrpcNodejsAclGroup";

  std::vector<std::string> proxy_overrides() override {
    const auto dir = fresh_directory("grpc-nodejs-acl");
    std::ofstream(dir / "acl.toml") << R"([[accounts]]
access_key = "grpc-user"
secret_key = "grpc-secret-1"
default_topic_perm = "DENY"
default_group_perm = "DENY"
topic_perms = ["GrpcNodejs_acl=PUB|SUB"]
group_perms = ["GrpcNodejsAclGroup=SUB"]

[[accounts]]
access_key = "grpc-reader"
secret_key = "grpc-secret-2"
topic_perms = ["GrpcNodejs_acl=SUB"]
group_perms = ["GrpcNodejsAclGroup=SUB"]
)";
    return {"proxy.acl_enable=true", "proxy.acl_file=" + (dir / "acl.toml").string()};
  }
};

// An account with PUB and SUB on the topic and SUB on the group produces and consumes through the
// proxy as without ACL: simple_consume's checks hold (every message received once, acked), and the
// group's offsets reach the end of the topic.
TEST_F(GrpcNodejsAclTest, SignedClientsWithTheirPermissionsProduceAndConsume) {
  ASSERT_NO_FATAL_FAILURE(create_topic(kTopic));
  ASSERT_NO_FATAL_FAILURE(create_group(kGroup, false, 16));
  const ScopedNodeEnvironment credentials{{"MQKIT_NODE_ACCESS_KEY", "grpc-user"}, {"MQKIT_NODE_SECRET_KEY", "grpc-secret-1"}};
  std::string output;
  ASSERT_NO_FATAL_FAILURE(run_scenario("simple_consume", kTopic, output, {kGroup, "4"}));
  EXPECT_EQ(results(output, "message").size(), 4u) << output;
  ASSERT_NO_FATAL_FAILURE(expect_offsets_at_the_end(kGroup, kTopic));
}

// No account, an unknown one, a wrong secret, and an account without PUB on the topic: each
// producer's startup is refused UNAUTHORIZED, and nothing reaches the topic.
TEST_F(GrpcNodejsAclTest, ClientsTheAclRefusesCannotStart) {
  ASSERT_NO_FATAL_FAILURE(create_topic(kTopic));
  const std::pair<std::string, std::string> accounts[] = {
      {"", ""}, {"grpc-nobody", "grpc-secret-1"}, {"grpc-user", "not-the-secret"}, {"grpc-reader", "grpc-secret-2"}};
  for (const auto& [access_key, secret_key] : accounts) {
    SCOPED_TRACE("account \"" + access_key + "\"");
    const ScopedNodeEnvironment credentials{{"MQKIT_NODE_ACCESS_KEY", access_key}, {"MQKIT_NODE_SECRET_KEY", secret_key}};
    std::string output;
    ASSERT_NO_FATAL_FAILURE(run_scenario("unauthorized", kTopic, output));
    const auto errors = results(output, "startup_error");
    ASSERT_EQ(errors.size(), 1u) << output;
    EXPECT_EQ(number(errors[0], "code"), 40100) << output;
  }
  EXPECT_TRUE(stored(kTopic).empty());
}

// mqproxy with tls_mode enforcing: the client connects with TLS (sslEnabled), trusting the
// proxy's certificate, and produces as over plaintext.
class GrpcNodejsTlsTest : public GrpcNodejsInteropTest {
 protected:
  std::vector<std::string> proxy_overrides() override {
    return {"proxy.tls_mode=enforcing", "proxy.tls_cert_file=" + identity_.cert, "proxy.tls_key_file=" + identity_.key};
  }
  std::filesystem::path dir_ = fresh_directory("grpc-nodejs-tls");
  TlsIdentity identity_ = make_tls_identity(dir_, "proxy");
};

TEST_F(GrpcNodejsTlsTest, ProducerConnectsOverTls) {
  const std::string topic = "GrpcNodejs_tls";
  ASSERT_NO_FATAL_FAILURE(create_topic(topic));
  const ScopedNodeEnvironment tls{{"MQKIT_NODE_TLS", "1"}, {"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH", identity_.cert}};
  std::string output;
  ASSERT_NO_FATAL_FAILURE(run_scenario("produce", topic, output, {"3"}));
  const auto receipts = results(output, "receipt");
  ASSERT_EQ(receipts.size(), 3u) << output;
  const auto messages = stored_at_least(topic, receipts.size());
  for (const auto& receipt : receipts) EXPECT_NE(find_by_id(messages, text(receipt, "messageId")), nullptr);
}

}  // namespace
}  // namespace mqkit::testing
