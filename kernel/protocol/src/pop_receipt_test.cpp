#include "mqkit/protocol/pop_receipt.hpp"

#include <gtest/gtest.h>

namespace mqkit::protocol {
namespace {

TEST(PopReceiptTest, RoundTripsRocketMqsExtraInfo) {
  // As RocketMQ's ExtraInfoUtil.buildExtraInfo writes it for queue 3, offset 42.
  const std::string text = "40 1700000000000 30000 0 0 broker-a 3 42";
  auto receipt = decode_pop_receipt(text);
  ASSERT_TRUE(receipt.is_ok()) << receipt.status().to_string();
  EXPECT_EQ(receipt->ck_queue_offset, 40);
  EXPECT_EQ(receipt->pop_time, 1700000000000);
  EXPECT_EQ(receipt->invisible_ms, 30000);
  EXPECT_EQ(receipt->broker_name, "broker-a");
  EXPECT_EQ(receipt->queue_id, 3);
  EXPECT_EQ(receipt->offset, 42);
  EXPECT_EQ(receipt->visible_again_at(), 1700000030000);
  EXPECT_EQ(encode_pop_receipt(*receipt), text);
  // The 7-field form names no message offset.
  EXPECT_EQ(decode_pop_receipt("40 1 2 0 0 broker-a 3")->offset, -1);
}

TEST(PopReceiptTest, RefusesMalformedReceipts) {
  for (const char* bad : {"", "1 2 3", "x 1 2 0 0 b 3 4", "1 2 3 0 0 b q 4", "1 2 3 0 0  3 4", "1 2 3 0 0 b 3 x", "1 -2 3 0 0 b 3 4",
                          "1 2 9223372036854775807 0 0 b 3 4"}) {
    EXPECT_EQ(decode_pop_receipt(bad).status().code(), plugin::v1::StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace mqkit::protocol
