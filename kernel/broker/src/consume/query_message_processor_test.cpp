#include "mqkit/broker/consume/query_message_processor.hpp"

#include <gtest/gtest.h>

#include "consume_test_support.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker {
namespace {

namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
using testing::FakeChannel;
using testing::TestMessage;

class QueryMessageProcessorTest : public testing::ProcessorTest<QueryMessageProcessor> {
 protected:
  void SetUp() override {
    testing::create_topic(harness_.context(), "T", 2);
    first_ = testing::append(harness_.context(), TestMessage{"T", 0, "one", "", "order-1 shared", "U1"});
    testing::append(harness_.context(), TestMessage{"T", 1, "two", "", "order-2 shared", "U2"});
    testing::append(harness_.context(), TestMessage{"T", 1, "two-again", "", "", "U2"});  // a resend
    harness_.wait_dispatched();
  }

  RemotingCommand query(const std::string& key, std::int32_t max_num) {
    return testing::make_request(rq::kQueryMessage, {{"topic", "T"},
                                                     {"key", key},
                                                     {"maxNum", std::to_string(max_num)},
                                                     {"beginTimestamp", "0"},
                                                     {"endTimestamp", std::to_string(INT64_MAX)}});
  }

  plugin::v1::AppendResult first_;
};

TEST_F(QueryMessageProcessorTest, QueryByKeyAnswersTheStoredRecords) {
  const RemotingCommand found = call(query("shared", 32));
  ASSERT_EQ(found.code, rc::kSuccess);
  std::set<std::string> bodies;
  for (const auto& record : testing::records_of(found)) bodies.insert(testing::body_of(record));
  EXPECT_EQ(bodies, (std::set<std::string>{"one", "two"}));
  EXPECT_GT(testing::ext_int(found, "indexLastUpdateTimestamp"), 0);
  EXPECT_GT(testing::ext_int(found, "indexLastUpdatePhyoffset"), 0);

  EXPECT_EQ(testing::records_of(call(query("shared", 1))).size(), 1u);

  const RemotingCommand none = call(query("missing", 32));
  EXPECT_EQ(none.code, rc::kQueryNotFound);
  EXPECT_EQ(none.remark, "can not find message, maybe time range not correct");
  EXPECT_TRUE(none.ext_fields.get("indexLastUpdateTimestamp").has_value());
}

TEST_F(QueryMessageProcessorTest, UniqueKeyQueryReturnsEveryCopyWhateverMaxNumSays) {
  RemotingCommand request = query("U2", 1);
  request.ext_fields.set("_UNIQUE_KEY_QUERY", std::string("true"));
  EXPECT_EQ(testing::records_of(call(std::move(request))).size(), 2u);
}

TEST_F(QueryMessageProcessorTest, ViewByOffsetMessageId) {
  // Clients derive the commit log offset from an offset message id.
  const std::string id = plugin::v1::make_offset_message_id(harness_.context().store_host, first_.commit_offset);
  const auto parsed = plugin::v1::parse_offset_message_id(id);
  ASSERT_TRUE(parsed.is_ok());
  const RemotingCommand found = call(
      testing::make_request(rq::kViewMessageById, {{"offset", std::to_string(parsed->commit_offset)}}));
  ASSERT_EQ(found.code, rc::kSuccess);
  const auto records = testing::records_of(found);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(testing::body_of(records[0]), "one");
  EXPECT_EQ(records[0].commit_offset, first_.commit_offset);

  const RemotingCommand missing = call(testing::make_request(rq::kViewMessageById, {{"offset", "999999"}}));
  EXPECT_EQ(missing.code, rc::kSystemError);
  EXPECT_EQ(missing.remark, "can not find message by the offset, 999999");
}

}  // namespace
}  // namespace mqkit::broker
