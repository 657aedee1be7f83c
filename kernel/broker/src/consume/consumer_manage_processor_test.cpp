#include "mqkit/broker/consume/consumer_manage_processor.hpp"

#include <gtest/gtest.h>

#include "consume_test_support.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"

namespace mqkit::broker {
namespace {

namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
using testing::FakeChannel;

class ConsumerManageProcessorTest : public testing::ProcessorTest<ConsumerManageProcessor> {
 protected:
  void join(std::uint64_t channel_id, const std::string& client_id) {
    protocol::ConsumerData data;
    data.group_name = "cg";
    data.message_model = "CLUSTERING";
    context().consumers->register_consumer(
        data, {std::make_shared<FakeChannel>(channel_id), client_id, plugin::v1::LanguageCode::kJava, 401, 0});
  }

  RemotingCommand query(std::int32_t queue_id, bool zero_if_not_found = true) {
    auto request = testing::make_request(
        rq::kQueryConsumerOffset, {{"consumerGroup", "cg"}, {"topic", "T"}, {"queueId", std::to_string(queue_id)}});
    if (!zero_if_not_found) request.ext_fields.set("setZeroIfNotFound", false);
    return call(std::move(request));
  }

  RemotingCommand update_request(std::int64_t offset) {
    return testing::make_request(rq::kUpdateConsumerOffset, {{"consumerGroup", "cg"},
                                                             {"topic", "T"},
                                                             {"queueId", "0"},
                                                             {"commitOffset", std::to_string(offset)}});
  }

};

TEST_F(ConsumerManageProcessorTest, ConsumerListHasEveryLiveMember) {
  const RemotingCommand none =
      call(testing::make_request(rq::kGetConsumerListByGroup, {{"consumerGroup", "cg"}}));
  EXPECT_EQ(none.code, rc::kSystemError);
  EXPECT_EQ(none.remark, "no consumer for this group, cg");

  join(1, "c2");
  join(2, "c1");
  const RemotingCommand listed = call(testing::make_request(rq::kGetConsumerListByGroup, {{"consumerGroup", "cg"}}));
  ASSERT_EQ(listed.code, rc::kSuccess);
  auto ids = protocol::decode_consumer_id_list(protocol::body_text(listed));
  ASSERT_TRUE(ids.is_ok()) << ids.status().to_string();
  EXPECT_EQ(ids->consumer_id_list, (std::vector<std::string>{"c1", "c2"}));
}

TEST_F(ConsumerManageProcessorTest, NewGroupOnAQueueStillStartingAtZeroGetsOffsetZero) {
  const RemotingCommand quirk = query(0);
  EXPECT_EQ(quirk.code, rc::kSuccess);
  EXPECT_EQ(testing::ext_int(quirk, "offset"), 0);

  const RemotingCommand strict = query(0, /*zero_if_not_found=*/false);
  EXPECT_EQ(strict.code, rc::kQueryNotFound);
  EXPECT_FALSE(strict.ext_fields.get("offset").has_value());

  context().offsets->commit("cg", "T", 0, 5);
  EXPECT_EQ(testing::ext_int(query(0), "offset"), 5);
}

TEST_F(ConsumerManageProcessorTest, UpdateCommitsAndIgnoresNegativeOffsets) {
  EXPECT_EQ(call(update_request(7)).code, rc::kSuccess);
  EXPECT_EQ(context().offsets->query("cg", "T", 0), 7);

  EXPECT_EQ(call(update_request(-1)).code, rc::kSuccess);  // ali-ons reports 0 as -1
  EXPECT_EQ(context().offsets->query("cg", "T", 0), 7);

  // One-way (Java's periodic persist): stored, never answered.
  RemotingCommand oneway = update_request(9);
  oneway.flag = RemotingCommand::kOnewayFlag;
  const std::size_t sent_before = channel_->sent().size();
  processor_.process(oneway, Responder(channel_, oneway));
  EXPECT_EQ(context().offsets->query("cg", "T", 0), 9);
  EXPECT_EQ(channel_->sent().size(), sent_before);

  EXPECT_EQ(call(testing::make_request(rq::kUpdateConsumerOffset, {{"consumerGroup", "cg"}})).code,
            rc::kSystemError);
}

}  // namespace
}  // namespace mqkit::broker
