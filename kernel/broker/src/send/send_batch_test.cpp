#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "mqkit/protocol/validation.hpp"
#include "send_test_support.hpp"

namespace mqkit::broker {
namespace {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
using testing::SendFixture;
using testing::SendRequest;

// A SEND_BATCH_MESSAGE request for `bodies`, each message with its own UNIQ_KEY.
SendRequest batch_of(const std::vector<std::string>& bodies, const v1::Properties& extra = {}) {
  SendRequest request;
  request.code = protocol::request_code::kSendBatchMessage;
  request.properties = {{"WAIT", "true"}};
  std::vector<std::uint8_t> body;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    v1::Properties properties{{"UNIQ_KEY", "ID" + std::to_string(i)}, {"TAGS", "Tag" + std::to_string(i)}};
    properties.insert(properties.end(), extra.begin(), extra.end());
    const auto& text = bodies[i];
    v1::append_batch_item(body, static_cast<std::int32_t>(i),
                          {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()},
                          v1::encode_properties(properties));
  }
  request.body.assign(body.begin(), body.end());
  return request;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  return parts;
}

TEST(SendBatchTest, MessagesGetConsecutiveOffsetsAndTheirOwnIds) {
  SendFixture f;
  ASSERT_EQ(f.send(SendRequest{}).code, rc::kSuccess);  // queue 0 of T now holds one message
  auto response = f.send(batch_of({"one", "two", "three"}));
  ASSERT_EQ(response.code, rc::kSuccess) << response.remark.value_or("");
  EXPECT_EQ(response.ext_fields.get("queueOffset"), "1");
  const auto ids = split(std::string(response.ext_fields.get("msgId").value_or("")));
  ASSERT_EQ(ids.size(), 3u);
  const std::vector<std::string> bodies{"one", "two", "three"};
  for (std::size_t i = 0; i < 3; ++i) {
    auto id = v1::parse_offset_message_id(ids[i]);
    ASSERT_TRUE(id.is_ok()) << ids[i];
    auto by_id = f.read_at(id->commit_offset);
    auto by_queue = f.read("T", 0, static_cast<std::int64_t>(i) + 1);
    ASSERT_TRUE(by_id && by_queue);
    EXPECT_EQ(by_id->view.commit_offset, by_queue->view.commit_offset);
    EXPECT_EQ(by_queue->body(), bodies[i]);
    EXPECT_EQ(by_queue->view.flag, static_cast<std::int32_t>(i));
    EXPECT_EQ(by_queue->view.born_timestamp, 1'700'000'000'000);
    EXPECT_EQ(v1::to_string(by_queue->view.born_host), "127.0.0.1:50000");
    // Each message's own properties, then the batch header's.
    EXPECT_EQ(by_queue->property("UNIQ_KEY"), "ID" + std::to_string(i));
    EXPECT_EQ(by_queue->property("TAGS"), "Tag" + std::to_string(i));
    EXPECT_EQ(by_queue->property("CLUSTER"), "DefaultCluster");
    EXPECT_EQ(by_queue->property("MSG_REGION"), "DefaultRegion");
    EXPECT_EQ(by_queue->property("TRACE_ON"), "true");
  }
}

TEST(SendBatchTest, HeaderPropertiesFollowEachMembersOwnAndReplaceTheSameNameInPlace) {
  SendFixture f;
  // The member's own WAIT sits before its extra property; the header's value takes its place.
  auto request = batch_of({"one", "two"}, {{"WAIT", "false"}, {"K", ""}});
  request.properties = {{"WAIT", "true"}, {"X", "1"}, {"X", "2"}};
  ASSERT_EQ(f.send(request).code, rc::kSuccess);
  for (std::size_t i = 0; i < 2; ++i) {
    auto stored = f.read("T", 0, static_cast<std::int64_t>(i));
    ASSERT_TRUE(stored);
    const v1::Properties expected{{"UNIQ_KEY", "ID" + std::to_string(i)}, {"TAGS", "Tag" + std::to_string(i)},
                                  {"WAIT", "true"}, {"K", ""}, {"X", "2"}, {"CLUSTER", "DefaultCluster"},
                                  {"MSG_REGION", "DefaultRegion"}, {"TRACE_ON", "true"}};
    EXPECT_EQ(stored->view.properties, v1::encode_properties(expected));
  }
}

// RocketMQ holds a batch by its header's properties alone, which its clients never give a delivery
// time: members asking for one are stored at once, as they are.
TEST(SendBatchTest, MembersDeliveryTimesAreNotHeld) {
  SendFixture f;
  auto response = f.send(batch_of({"one", "two"}, {{"TIMER_DELAY_SEC", "60"}}));
  ASSERT_EQ(response.code, rc::kSuccess) << response.remark.value_or("");
  auto first = f.read("T", 0, 0);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->property("TIMER_DELAY_SEC"), "60");
  EXPECT_FALSE(first->property("TIMER_OUT_MS"));
  EXPECT_EQ(f.context().store->max_offset("rmq_sys_wheel_timer", 0), 0);
}

TEST(SendBatchTest, MalformedBodyIsIllegal) {
  SendFixture f;
  auto request = batch_of({"one", "two"});
  request.body.resize(request.body.size() - 3);
  auto response = f.send(request);
  EXPECT_EQ(response.code, rc::kMessageIllegal);
  request.body.clear();
  EXPECT_EQ(f.send(request).code, rc::kMessageIllegal);
  EXPECT_FALSE(f.read("T", 0, 0).has_value());
}

TEST(SendBatchTest, HeaderPropertiesRepeatedPastTheMessageSizeLimitAreRefusedBeforeTheyAreBuilt) {
  SendFixture f;
  // A 1 MiB body of 2,000 small messages, and 30,000 bytes of header properties that each of
  // them would carry: 60 MB of properties from one request.
  auto request = batch_of(std::vector<std::string>(2000, "m"));
  request.properties.push_back({"BIG", std::string(30'000, 'x')});
  const auto response = f.send(request);
  EXPECT_EQ(response.code, rc::kMessageIllegal);
  const std::string remark = response.remark.value_or("");
  EXPECT_NE(remark.find("2000 messages"), std::string::npos) << remark;
  EXPECT_NE(remark.find("more than the message size limit"), std::string::npos) << remark;
  EXPECT_FALSE(f.read("T", 0, 0).has_value());
  // The same header properties on a few messages are fine.
  auto few = batch_of({"one", "two"});
  few.properties.push_back({"BIG", std::string(30'000, 'x')});
  EXPECT_EQ(f.send(few).code, rc::kSuccess);
}

TEST(SendBatchTest, RetryTopicsAndDelaysAreIllegal) {
  SendFixture f;
  auto to_retry = batch_of({"one"});
  to_retry.topic = protocol::retry_topic("G");
  EXPECT_EQ(f.send(to_retry).code, rc::kMessageIllegal);
  EXPECT_EQ(f.send(batch_of({"one", "two"}, {{"DELAY", "1"}})).code, rc::kMessageIllegal);
  EXPECT_FALSE(f.read("T", 0, 0).has_value());
}

}  // namespace
}  // namespace mqkit::broker
