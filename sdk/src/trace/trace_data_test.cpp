#include "mqkit/client/trace_data.hpp"

#include <gtest/gtest.h>

namespace mqkit::client::trace {
namespace {

// Fields joined by char 1, each record ended by char 2, as RocketMQ's TraceDataEncoder writes them.
std::string record(std::initializer_list<std::string_view> fields) {
  std::string out;
  for (const auto field : fields) {
    if (!out.empty()) out += '\x01';
    out += field;
  }
  return out + '\x02';
}

TraceContext pub() {
  TraceContext c{.type = TraceType::kPub,
                 .timestamp_ms = 1700000000123,
                 .region_id = "DefaultRegion",
                 .group = "OrderProducer",
                 .cost_ms = 7,
                 .success = true};
  c.beans.push_back({.topic = "Orders",
                     .msg_id = "7F00000100002A9F0000000000000001",
                     .offset_msg_id = "7F00000100002A9F00000000000000FF",
                     .tags = "TagA",
                     .keys = "order-1 order-2",
                     .store_host = "127.0.0.1:10911",
                     .body_length = 42,
                     .msg_type = TraceMessageType::kDelay});
  return c;
}

TEST(TraceDataTest, PubIsWrittenInRocketMqFieldOrder) {
  const TraceTransfer transfer = encode_trace_context(pub());
  EXPECT_EQ(transfer.data, record({"Pub", "1700000000123", "DefaultRegion", "OrderProducer", "Orders",
                                   "7F00000100002A9F0000000000000001", "TagA", "order-1 order-2", "127.0.0.1:10911",
                                   "42", "7", "3", "7F00000100002A9F00000000000000FF", "true"}));
  // The message id and each key, so a query by any of them on the trace topic finds the record.
  EXPECT_EQ(transfer.keys, (std::vector<std::string>{"7F00000100002A9F0000000000000001", "order-1", "order-2"}));
}

TEST(TraceDataTest, DecodesALiteralTraceMessageOfEveryType) {
  // One trace message as a RocketMQ 4.9 client writes it: a Pub, the consumer's SubBefore and
  // SubAfter (Java writes absent keys as "null") and a transaction's EndTransaction.
  const std::string body =
      record({"Pub", "1700000000000", "DefaultRegion", "P", "T", "ID1", "TagA", "k1", "10.0.0.1:10911", "5", "3", "0",
              "OFF1", "true"}) +
      record({"SubBefore", "1700000000100", "DefaultRegion", "C", "REQ1", "ID1", "2", "null"}) +
      record({"SubAfter", "REQ1", "ID1", "12", "false", "null", "4", "1700000000112", "C"}) +
      record({"EndTransaction", "1700000000200", "DefaultRegion", "P", "T", "ID1", "null", "k1", "10.0.0.1:10911",
              "2", "TX1", "ROLLBACK_MESSAGE", "true"});
  const auto decoded = decode_trace_data(body);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  ASSERT_EQ(decoded->size(), 4u);

  const TraceContext& p = (*decoded)[0];
  EXPECT_EQ(p.type, TraceType::kPub);
  EXPECT_EQ(p.timestamp_ms, 1700000000000);
  EXPECT_EQ(p.group, "P");
  EXPECT_EQ(p.cost_ms, 3);
  EXPECT_TRUE(p.success);
  ASSERT_EQ(p.beans.size(), 1u);
  EXPECT_EQ(p.beans[0].topic, "T");
  EXPECT_EQ(p.beans[0].msg_id, "ID1");
  EXPECT_EQ(p.beans[0].tags, "TagA");
  EXPECT_EQ(p.beans[0].keys, "k1");
  EXPECT_EQ(p.beans[0].store_host, "10.0.0.1:10911");
  EXPECT_EQ(p.beans[0].body_length, 5);
  EXPECT_EQ(p.beans[0].msg_type, TraceMessageType::kNormal);
  EXPECT_EQ(p.beans[0].offset_msg_id, "OFF1");

  const TraceContext& before = (*decoded)[1];
  EXPECT_EQ(before.type, TraceType::kSubBefore);
  EXPECT_EQ(before.group, "C");
  EXPECT_EQ(before.request_id, "REQ1");
  EXPECT_EQ(before.beans[0].retry_times, 2);
  EXPECT_EQ(before.beans[0].keys, "");  // "null"

  const TraceContext& after = (*decoded)[2];
  EXPECT_EQ(after.type, TraceType::kSubAfter);
  EXPECT_EQ(after.request_id, "REQ1");
  EXPECT_EQ(after.beans[0].msg_id, "ID1");
  EXPECT_EQ(after.cost_ms, 12);
  EXPECT_FALSE(after.success);
  EXPECT_EQ(after.context_code, static_cast<int>(ConsumeReturnType::kFailed));
  EXPECT_EQ(after.timestamp_ms, 1700000000112);
  EXPECT_EQ(after.group, "C");

  const TraceContext& end = (*decoded)[3];
  EXPECT_EQ(end.type, TraceType::kEndTransaction);
  EXPECT_EQ(end.beans[0].tags, "");
  EXPECT_EQ(end.beans[0].msg_type, TraceMessageType::kTransactionCommit);
  EXPECT_EQ(end.beans[0].transaction_id, "TX1");
  EXPECT_EQ(end.beans[0].transaction_state, "ROLLBACK_MESSAGE");
  EXPECT_TRUE(end.beans[0].from_transaction_check);
}

TEST(TraceDataTest, RoundTripsEveryType) {
  TraceContext before{.type = TraceType::kSubBefore,
                      .timestamp_ms = 1,
                      .region_id = "R",
                      .group = "G",
                      .request_id = "REQ"};
  before.beans.push_back({.msg_id = "A", .keys = "ka", .retry_times = 1});
  before.beans.push_back({.msg_id = "B", .retry_times = 0});
  TraceContext after{.type = TraceType::kSubAfter,
                     .timestamp_ms = 2,
                     .group = "G",
                     .cost_ms = 9,
                     .success = false,
                     .request_id = "REQ",
                     .context_code = static_cast<int>(ConsumeReturnType::kException)};
  after.beans = {{.msg_id = "A", .keys = "ka"}, {.msg_id = "B"}};
  TraceContext end{.type = TraceType::kEndTransaction, .timestamp_ms = 3, .region_id = "R", .group = "G"};
  end.beans.push_back({.topic = "T",
                       .msg_id = "A",
                       .tags = "t",
                       .store_host = "h:1",
                       .msg_type = TraceMessageType::kTransactionCommit,
                       .transaction_id = "X",
                       .transaction_state = "COMMIT_MESSAGE"});
  std::string body;
  for (const auto& context : {pub(), before, after, end}) body += encode_trace_context(context).data;
  const auto decoded = decode_trace_data(body);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  // A consume context of two messages comes back as two records of one bean each.
  ASSERT_EQ(decoded->size(), 6u);
  EXPECT_EQ((*decoded)[0], pub());
  TraceContext before_a = before;
  before_a.beans.resize(1);
  EXPECT_EQ((*decoded)[1], before_a);
  TraceContext before_b = before;
  before_b.beans.erase(before_b.beans.begin());
  EXPECT_EQ((*decoded)[2], before_b);
  TraceContext after_b = after;
  after_b.beans.erase(after_b.beans.begin());
  EXPECT_EQ((*decoded)[4], after_b);
  EXPECT_EQ((*decoded)[5], end);
}

TEST(TraceDataTest, ReadsOlderAndNewerLayouts) {
  const std::string body =
      // Pub before offsetMsgId existed (13 fields), then one with a trailing clientHost (15).
      record({"Pub", "1", "R", "P", "T", "ID1", "t", "k", "h:1", "5", "3", "1", "false"}) +
      record({"Pub", "1", "R", "P", "T", "ID2", "t", "k", "h:1", "5", "3", "0", "OFF", "true", "10.1.1.1"}) +
      // SubAfter without contextCode, and the cloud layout ending with a separator.
      record({"SubAfter", "REQ", "ID1", "4", "true", "k"}) + "SubAfter\x01REQ\x01ID2\x01" "4\x01true\x01k\x01" "0\x01\x02" +
      // A newer client's Recall record is skipped.
      record({"Recall", "1", "R", "P", "T", "ID1", "true"});
  const auto decoded = decode_trace_data(body);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  ASSERT_EQ(decoded->size(), 4u);
  EXPECT_FALSE((*decoded)[0].success);
  EXPECT_EQ((*decoded)[0].beans[0].msg_type, TraceMessageType::kTransactionHalf);
  EXPECT_EQ((*decoded)[0].beans[0].offset_msg_id, "");
  EXPECT_TRUE((*decoded)[1].success);
  EXPECT_EQ((*decoded)[1].beans[0].client_host, "10.1.1.1");
  EXPECT_EQ((*decoded)[2].context_code, 0);
  EXPECT_EQ((*decoded)[2].group, "");
  EXPECT_EQ((*decoded)[3].beans[0].msg_id, "ID2");
  EXPECT_EQ((*decoded)[3].timestamp_ms, 0);
}

TEST(TraceDataTest, RejectsMalformedRecords) {
  const auto short_pub = decode_trace_data(record({"Pub", "1", "R", "P", "T"}));
  ASSERT_FALSE(short_pub.is_ok());
  EXPECT_EQ(short_pub.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(short_pub.status().message().find("Pub record has 5 fields"), std::string::npos);
  const auto bad_number =
      decode_trace_data(record({"SubBefore", "1", "R", "P", "T", "ID1", "x"}) + record({"SubBefore"}));
  ASSERT_FALSE(bad_number.is_ok());
  EXPECT_NE(bad_number.status().message().find("trace record 1: retryTimes is not a number"), std::string::npos);
  const auto bad_type = decode_trace_data(record({"Pub", "1", "R", "P", "T", "I", "t", "k", "h", "5", "3", "9", "O",
                                                  "true"}));
  ASSERT_FALSE(bad_type.is_ok());
  EXPECT_NE(bad_type.status().message().find("msgType 9"), std::string::npos);
  EXPECT_TRUE(decode_trace_data("").is_ok());
}

}  // namespace
}  // namespace mqkit::client::trace
