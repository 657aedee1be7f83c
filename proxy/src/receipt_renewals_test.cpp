#include "receipt_renewals.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace mqkit::proxy {
namespace {

using namespace std::chrono_literals;

RenewedDelivery delivery(const std::string& client, const std::string& message_id, std::int64_t visible_again_at) {
  return {.client_id = client, .group = "G", .topic = "T", .message_id = message_id,
          .client_handle = "handle-" + message_id, .handle = "handle-" + message_id,
          .visible_again_at_ms = visible_again_at, .received_at_ms = 0};
}

TEST(ReceiptRenewalsTest, DueDeliveriesAreRenewedAndTheClientsHandleThenNamesTheNewOne) {
  ReceiptRenewals renewals;
  renewals.add(delivery("c1", "m1", 60'000));
  renewals.add(delivery("c1", "m2", 120'000));
  EXPECT_TRUE(renewals.due(40'000, 10'000).empty());
  auto due = renewals.due(50'000, 10'000);
  ASSERT_EQ(due.size(), 1U);
  EXPECT_EQ(due[0].message_id, "m1");
  EXPECT_TRUE(renewals.due(50'000, 10'000).empty()) << "handed out twice while being renewed";
  renewals.renewed(due[0], "handle-m1-renewed", 110'000);
  EXPECT_TRUE(renewals.due(50'000, 10'000).empty());
  due = renewals.due(110'000, 10'000);
  ASSERT_EQ(due.size(), 2U);
  EXPECT_EQ(due[0].renewals, 1);
  EXPECT_EQ(due[0].handle, "handle-m1-renewed");
  renewals.renewed(due[0], "handle-m1-again", 300'000);
  renewals.renewed(due[1], "handle-m2-renewed", 300'000);

  EXPECT_EQ(renewals.take("G", "m1", "handle-m1"), "handle-m1-again");
  EXPECT_EQ(renewals.take("G", "m1", "handle-m1"), std::nullopt) << "taken once";
  EXPECT_EQ(renewals.take("G", "m2", "handle-m1"), std::nullopt) << "another message's handle";
  EXPECT_EQ(renewals.take("Other", "m2", "handle-m2"), std::nullopt) << "another group";
  EXPECT_EQ(renewals.size(), 1U);
}

TEST(ReceiptRenewalsTest, ATakeWaitsForTheRenewalInFlight) {
  ReceiptRenewals renewals;
  renewals.add(delivery("c1", "m1", 1'000));
  const auto due = renewals.due(0, 10'000);
  ASSERT_EQ(due.size(), 1U);
  std::thread renewer([&] {
    std::this_thread::sleep_for(100ms);
    renewals.renewed(due[0], "handle-m1-renewed", 70'000);
  });
  EXPECT_EQ(renewals.take("G", "m1", "handle-m1", 5s), "handle-m1-renewed");
  renewer.join();
}

TEST(ReceiptRenewalsTest, FailuresDropAfterTheMaximumAndAClientsLeavingTakesItsDeliveries) {
  ReceiptRenewals renewals;
  renewals.add(delivery("c1", "m1", 0));
  for (int i = 1; i < ReceiptRenewals::kMaxFailures; ++i) {
    auto due = renewals.due(0, 10'000);
    ASSERT_EQ(due.size(), 1U);
    EXPECT_FALSE(renewals.failed(due[0]));
  }
  auto due = renewals.due(0, 10'000);
  ASSERT_EQ(due.size(), 1U);
  EXPECT_TRUE(renewals.failed(due[0]));
  EXPECT_EQ(renewals.size(), 0U);

  renewals.add(delivery("c1", "m1", 0));
  renewals.add(delivery("c1", "m2", 0));
  renewals.add(delivery("c2", "m3", 0));
  const auto renewing = renewals.due(0, 10'000);
  const auto gone = renewals.take_client("c1");
  EXPECT_EQ(gone.size(), 2U);
  EXPECT_EQ(renewals.size(), 1U);
  renewals.renewed(renewing[0], "late", 90'000);  // a renewal ending after its client left finds nothing
  EXPECT_EQ(renewals.size(), 1U);
  EXPECT_EQ(renewal_duration(0), 1min);
  EXPECT_EQ(renewal_duration(4), 30min);
  EXPECT_EQ(renewal_duration(40), 1h);
}

}  // namespace
}  // namespace mqkit::proxy
