#include "mqkit/protocol/transaction.hpp"

#include <gtest/gtest.h>

namespace mqkit::protocol::transaction {
namespace {

using plugin::v1::ExtFields;

TEST(TransactionHeadersTest, EndTransactionTravelsUnderRocketMqNames) {
  ExtFields fields;
  write(EndTransactionHeader{"PG", 12, 4096, Resolution::kRollback, true, "UNIQ", "TX"}, fields);
  EXPECT_EQ(fields.get("producerGroup"), "PG");
  EXPECT_EQ(fields.get("tranStateTableOffset"), "12");
  EXPECT_EQ(fields.get("commitLogOffset"), "4096");
  EXPECT_EQ(fields.get("commitOrRollback"), "12");
  EXPECT_EQ(fields.get("fromTransactionCheck"), "true");
  EXPECT_EQ(fields.get("msgId"), "UNIQ");
  EXPECT_EQ(fields.get("transactionId"), "TX");
  auto read = read_end_transaction_header(fields);
  ASSERT_TRUE(read.is_ok()) << read.status().to_string();
  EXPECT_EQ(read->producer_group, "PG");
  EXPECT_EQ(read->tran_state_table_offset, 12);
  EXPECT_EQ(read->commit_log_offset, 4096);
  EXPECT_EQ(read->resolution, Resolution::kRollback);
  EXPECT_TRUE(read->from_transaction_check);
  EXPECT_EQ(read->msg_id, "UNIQ");
  EXPECT_EQ(read->transaction_id, "TX");
}

TEST(TransactionHeadersTest, EndTransactionNamesWhatIsMissingOrWrong) {
  ExtFields fields;
  fields.set("producerGroup", "PG");
  fields.set("tranStateTableOffset", "1");
  fields.set("commitOrRollback", "8");
  fields.set("msgId", "UNIQ");
  EXPECT_EQ(read_end_transaction_header(fields).status().message(), "the custom field <commitLogOffset> is null");
  fields.set("commitLogOffset", "far");
  EXPECT_FALSE(read_end_transaction_header(fields).is_ok());
  fields.set("commitLogOffset", "7");
  auto read = read_end_transaction_header(fields);  // fromTransactionCheck and transactionId are optional
  ASSERT_TRUE(read.is_ok());
  EXPECT_FALSE(read->from_transaction_check);
  EXPECT_EQ(read->resolution, Resolution::kCommit);
}

TEST(TransactionHeadersTest, CheckTransactionStateRoundTrips) {
  ExtFields fields;
  write(CheckTransactionStateHeader{3, 8192, "UNIQ", "UNIQ", "7F00000100002A9F0000000000002000"}, fields);
  EXPECT_EQ(fields.get("offsetMsgId"), "7F00000100002A9F0000000000002000");
  auto read = read_check_transaction_state_header(fields);
  ASSERT_TRUE(read.is_ok());
  EXPECT_EQ(read->tran_state_table_offset, 3);
  EXPECT_EQ(read->commit_log_offset, 8192);
  EXPECT_EQ(read->msg_id, "UNIQ");
  EXPECT_EQ(read->transaction_id, "UNIQ");
  EXPECT_EQ(read->offset_msg_id, "7F00000100002A9F0000000000002000");
  EXPECT_EQ(read_check_transaction_state_header(ExtFields{}).status().message(),
            "the custom field <tranStateTableOffset> is null");
}

}  // namespace
}  // namespace mqkit::protocol::transaction
