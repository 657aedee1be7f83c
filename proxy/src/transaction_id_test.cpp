#include "transaction_id.hpp"

#include <gtest/gtest.h>

namespace mqkit::proxy {
namespace {

TEST(TransactionIdTest, CarriesWhatEndTransactionNeeds) {
  const ProxyTransactionId id{.broker_name = "broker-a", .tran_state_table_offset = 12, .commit_log_offset = 3456,
                              .broker_transaction_id = "0A0000010000000000000000000000E1"};
  const std::string text = encode_transaction_id(id);
  EXPECT_EQ(text, "broker-a 12 3456 0A0000010000000000000000000000E1");
  auto back = decode_transaction_id(text);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->broker_name, "broker-a");
  EXPECT_EQ(back->tran_state_table_offset, 12);
  EXPECT_EQ(back->commit_log_offset, 3456);
  EXPECT_EQ(back->broker_transaction_id, "0A0000010000000000000000000000E1");
  for (const char* bad : {"", "broker-a", "broker-a 1 2", "broker-a x 2 id", "broker-a 1 -2 id", "broker-a 1 2 a b", " 1 2 id"}) {
    EXPECT_FALSE(decode_transaction_id(bad).is_ok()) << bad;
  }
}

}  // namespace
}  // namespace mqkit::proxy
