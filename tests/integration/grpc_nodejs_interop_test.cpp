// The official RocketMQ 5 gRPC Node.js client (rocketmq-client-nodejs, its Producer) sends through
// mqproxy to real mqnamesrv + mqbroker processes; the test then reads back what the broker stored
// (pulls of every queue) and checks it against the receipts the client printed. The scenarios
// live in tests/interop/grpc-nodejs/scenarios.js; tools/test.sh installs the client there.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
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
    const auto broker = cluster_->add_broker({.name = "broker-a", .store = "commitlog"});
    ASSERT_TRUE(broker.is_ok()) << broker.to_string();
    const auto proxy = cluster_->add_proxy();
    ASSERT_TRUE(proxy.is_ok()) << proxy.to_string();
  }

  void TearDown() override { cluster_.reset(); }

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
  std::vector<StoredMessage> stored(const std::string& topic) {
    std::vector<StoredMessage> out;
    for (int queue = 0; queue < kQueues; ++queue) {
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

}  // namespace
}  // namespace mqkit::testing
