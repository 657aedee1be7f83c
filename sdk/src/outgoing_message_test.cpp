#include "outgoing_message.hpp"

#include <gtest/gtest.h>

#include <set>

#include "mqkit/client/compression.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::client {
namespace {

namespace v1 = plugin::v1;

std::string property_of(const std::string& encoded, std::string_view name) {
  return std::string(v1::find_property(encoded, name).value_or(""));
}

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

TEST(ValidateMessageTest, RejectsWhatRocketMqRejects) {
  ProducerConfig config;
  const auto check = [&](Message m) { return validate_message(m, config); };
  EXPECT_TRUE(check(Message("Topic_A-1|%", "x")).is_ok());
  EXPECT_EQ(check(Message("", "x")).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(check(Message("bad topic", "x")).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(check(Message(std::string(128, 'a'), "x")).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(check(Message(std::string(127, 'a'), "x")).is_ok());
  const Status forbidden = check(Message("SCHEDULE_TOPIC_XXXX", "x"));
  EXPECT_EQ(forbidden.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(forbidden.message().find("forbidden"), std::string::npos);
  const Status empty = check(Message("T", ""));
  EXPECT_NE(empty.message().find("body length is zero"), std::string::npos);
  config.max_message_size = 10;
  EXPECT_TRUE(check(Message("T", std::string(10, 'x'))).is_ok());
  const Status big = check(Message("T", std::string(11, 'x')));
  EXPECT_NE(big.message().find("over max value, MAX: 10"), std::string::npos) << big.to_string();
}

TEST(ValidateMessageTest, RefusesADelayLevelWithADeliveryTime) {
  const ProducerConfig config;
  Message timed("T", "x");
  timed.set_delay_time_sec(5);
  EXPECT_TRUE(validate_message(timed, config).is_ok());
  timed.set_delay_time_level(2);
  const Status both = validate_message(timed, config);
  EXPECT_EQ(both.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(both.message().find("both a delay level (2) and a delivery time"), std::string::npos) << both.to_string();
}

// RocketMQ 5's producer never puts a message with a delivery time into an auto batch.
TEST(PrepareMessageTest, MessagesWithADeliveryTimeAreNotBatchable) {
  const ProducerConfig config;
  Message timed("T", "x");
  timed.set_deliver_time_ms(1'700'000'000'000);
  auto prepared = prepare_message(timed, config);
  ASSERT_TRUE(prepared.is_ok());
  EXPECT_FALSE(prepared->batchable);
  EXPECT_EQ(property_of(prepared->properties, "TIMER_DELIVER_MS"), "1700000000000");
}

TEST(PrepareMessageTest, AssignsUniqueKeyAndKeepsAGivenOne) {
  ProducerConfig config;
  auto prepared = prepare_message(Message("T", "TagA", "hello"), config);
  ASSERT_TRUE(prepared.is_ok());
  EXPECT_EQ(property_of(prepared->properties, "UNIQ_KEY").size(), 32u);
  EXPECT_EQ(property_of(prepared->properties, "TAGS"), "TagA");
  EXPECT_EQ(prepared->tags, "TagA");
  EXPECT_EQ(*prepared->body, "hello");
  EXPECT_EQ(prepared->sys_flag, 0);
  EXPECT_FALSE(prepared->batch);

  Message given("T", "hello");
  given.set_property("UNIQ_KEY", "MINE");
  EXPECT_EQ(property_of(prepare_message(given, config)->properties, "UNIQ_KEY"), "MINE");
}

TEST(PrepareMessageTest, PropertiesAreEncodedInNameOrderWithTheNewUniqueKeyInItsPlace) {
  ProducerConfig config;
  Message message("T", "TagA", "k1", "hello");
  ASSERT_TRUE(message.put_user_property("a_after_all_upper_case", "1").is_ok());
  ASSERT_TRUE(message.put_user_property("ABC", "2").is_ok());
  auto prepared = prepare_message(message, config);
  ASSERT_TRUE(prepared.is_ok());
  const std::string id = property_of(prepared->properties, "UNIQ_KEY");
  ASSERT_EQ(id.size(), 32u);
  // What encoding the message's map after setting UNIQ_KEY on it gives (names sorted).
  message.set_property("UNIQ_KEY", id);
  EXPECT_EQ(prepared->properties,
            v1::encode_properties({message.properties().begin(), message.properties().end()}));
  EXPECT_EQ(v1::decode_properties(prepared->properties)[3].first, "UNIQ_KEY");  // after TAGS
  // Only names before UNIQ_KEY, and none at all: the key goes last.
  for (Message only : {Message("T", "hello"), Message("T", "TagA", "hello")}) {
    auto p = prepare_message(only, config);
    ASSERT_TRUE(p.is_ok());
    EXPECT_EQ(v1::decode_properties(p->properties).back().first, "UNIQ_KEY");
  }
  // An empty UNIQ_KEY is replaced in place, not repeated.
  Message empty_id("T", "hello");
  empty_id.set_property("UNIQ_KEY", "");
  empty_id.set_property("ZZZ", "z");
  auto replaced = prepare_message(empty_id, config);
  ASSERT_TRUE(replaced.is_ok());
  const auto list = v1::decode_properties(replaced->properties);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].first, "UNIQ_KEY");
  EXPECT_EQ(list[0].second.size(), 32u);
  EXPECT_EQ(list[1], (std::pair<std::string, std::string>("ZZZ", "z")));
}

TEST(PrepareMessageTest, CompressesBodiesOverTheThreshold) {
  ProducerConfig config;
  std::string body;
  while (body.size() < 20000) body += "compressible text " + std::to_string(body.size() % 7);
  auto small = prepare_message(Message("T", std::string(4096, 'a')), config);
  ASSERT_TRUE(small.is_ok());
  EXPECT_EQ(small->sys_flag & v1::sys_flag::kCompressed, 0);  // not over 4 KiB
  auto large = prepare_message(Message("T", body), config);
  ASSERT_TRUE(large.is_ok());
  EXPECT_NE(large->sys_flag & v1::sys_flag::kCompressed, 0);
  EXPECT_LT(large->body->size(), body.size());
  EXPECT_EQ(*zlib_uncompress(bytes_of(*large->body)), body);
}

TEST(PrepareMessageTest, MaxSizeIsCheckedOnTheUncompressedBody) {
  ProducerConfig config;
  config.max_message_size = 5000;
  // Compresses to far less than 5000 bytes, yet is refused as RocketMQ refuses it.
  EXPECT_EQ(prepare_message(Message("T", std::string(6000, 'a')), config).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(PrepareMessageTest, TransactionAndRetryTopicHeaders) {
  ProducerConfig config;
  Message half("T", "x");
  half.set_property("TRAN_MSG", "true");
  EXPECT_EQ(prepare_message(half, config)->sys_flag & v1::sys_flag::kTransactionMask,
            v1::sys_flag::kTransactionPrepared);
  Message retry("%RETRY%group", "x");
  retry.set_property("RECONSUME_TIME", "3");
  retry.set_property("MAX_RECONSUME_TIMES", "16");
  auto prepared = prepare_message(retry, config);
  ASSERT_TRUE(prepared.is_ok());
  EXPECT_EQ(prepared->reconsume_times, 3);
  EXPECT_EQ(prepared->max_reconsume_times, 16);
}

TEST(PrepareMessageTest, RefusesPropertiesOverTheLimit) {
  ProducerConfig config;
  Message m("T", "x");
  ASSERT_TRUE(m.put_user_property("big", std::string(33000, 'p')).is_ok());
  EXPECT_EQ(prepare_message(m, config).status().code(), StatusCode::kInvalidArgument);
}

TEST(PrepareBatchTest, EncodesEachMessageWithItsOwnUniqueKey) {
  ProducerConfig config;
  std::vector<Message> messages;
  for (int i = 0; i < 3; ++i) {
    Message m("T", "TagA", "body-" + std::to_string(i));
    m.set_flag(i);
    messages.push_back(std::move(m));
  }
  auto prepared = prepare_batch(std::move(messages), config);
  ASSERT_TRUE(prepared.is_ok()) << prepared.status().to_string();
  EXPECT_TRUE(prepared->batch);
  EXPECT_EQ(prepared->sys_flag, 0);
  EXPECT_EQ(property_of(prepared->properties, "WAIT"), "true");
  // No batch-level id: brokers append the header's properties to every message (rocketmq#9416).
  EXPECT_EQ(property_of(prepared->properties, "UNIQ_KEY"), "");
  auto items = v1::decode_batch(bytes_of(*prepared->body));
  ASSERT_TRUE(items.is_ok());
  ASSERT_EQ(items->size(), 3u);
  std::set<std::string> ids;
  for (std::size_t i = 0; i < items->size(); ++i) {
    const auto& item = (*items)[i];
    EXPECT_EQ(item.flag, static_cast<std::int32_t>(i));
    EXPECT_EQ(std::string(item.body.begin(), item.body.end()), "body-" + std::to_string(i));
    EXPECT_EQ(v1::find_property(item.properties, "TAGS"), "TagA");
    ids.insert(std::string(v1::find_property(item.properties, "UNIQ_KEY").value_or("")));
  }
  EXPECT_EQ(ids.size(), 3u);
}

TEST(PrepareBatchTest, BatchesAreNeverCompressed) {
  ProducerConfig config;
  std::vector<Message> messages;
  messages.emplace_back("T", std::string(100000, 'z'));
  auto prepared = prepare_batch(std::move(messages), config);
  ASSERT_TRUE(prepared.is_ok());
  EXPECT_EQ(prepared->sys_flag & v1::sys_flag::kCompressed, 0);
  EXPECT_GT(prepared->body->size(), 100000u);
}

TEST(PrepareBatchTest, RefusesMixedTopicsDelaysRetryTopicsTransactionsAndOversize) {
  ProducerConfig config;
  const auto batch = [&](std::vector<Message> messages) { return prepare_batch(std::move(messages), config).status(); };
  EXPECT_EQ(batch({}).code(), StatusCode::kInvalidArgument);
  EXPECT_NE(batch({Message("A", "x"), Message("B", "x")}).message().find("same"), std::string::npos);
  Message delayed("A", "x");
  delayed.set_delay_time_level(2);
  EXPECT_NE(batch({Message("A", "x"), delayed}).message().find("TimeDelayLevel"), std::string::npos);
  EXPECT_NE(batch({Message("%RETRY%g", "x")}).message().find("Retry"), std::string::npos);
  Message timed("A", "x");
  timed.set_delay_time_ms(500);
  EXPECT_NE(batch({Message("A", "x"), timed}).message().find("delivery time"), std::string::npos);
  Message half("A", "x");
  half.set_property("TRAN_MSG", "true");
  EXPECT_NE(batch({Message("A", "x"), half}).message().find("cannot be sent in a batch"), std::string::npos);
  Message no_wait("A", "x");
  no_wait.set_wait_store_msg_ok(false);
  EXPECT_EQ(batch({Message("A", "x"), no_wait}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(batch({Message("A", "")}).code(), StatusCode::kInvalidArgument);
  config.max_message_size = 100;
  EXPECT_NE(batch({Message("A", std::string(60, 'x')), Message("A", std::string(60, 'x'))}).message().find("over max"),
            std::string::npos);
}

}  // namespace
}  // namespace mqkit::client
