#include "receive_sink.hpp"

#include <gtest/gtest.h>

#include "payload_stamp.hpp"

namespace mqkit::bench {
namespace {

client::MessageExt stamped(std::uint32_t producer, std::uint64_t sequence, std::uint64_t send_ns,
                           std::int64_t queue_offset = 0) {
  client::MessageExt m;
  m.set_body(make_payload(100, PayloadStamp{producer, sequence, send_ns}));
  m.queue_offset = queue_offset;
  return m;
}

const client::MessageQueue kQueue0{"T", "broker-a", 0};
const client::MessageQueue kQueue1{"T", "broker-a", 1};

TEST(ReceiveSinkTest, OnlyFirstReceiptsOfMeasuredMessagesAreCountedAndTimed) {
  BenchStats stats;
  ReceiveSink sink(stats);
  const std::uint64_t before = wall_clock_ns();
  sink.on_messages(kQueue0, std::vector{stamped(0, 0, before)});  // warm-up: tracked, not counted
  stats.begin_measurement();
  const std::uint64_t after = wall_clock_ns();
  sink.on_messages(kQueue0, std::vector{stamped(0, 1, after, 1), stamped(0, 2, after, 2)});
  sink.on_messages(kQueue1, std::vector{stamped(0, 2, after)});  // a duplicate: not counted again
  EXPECT_EQ(stats.received.messages.load(), 2u);
  EXPECT_EQ(stats.received.bytes.load(), 200u);
  EXPECT_EQ(stats.e2e.total().count(), 2u);
  EXPECT_GT(stats.last_receive_ns.load(), 0u);
  const SequenceErrors e = sink.errors({ProducerLedger{4, {}}});
  EXPECT_EQ(e.duplicated, 1u);
  EXPECT_EQ(e.lost, 1u);  // sequence 3
  EXPECT_EQ(sink.missing({ProducerLedger{3, {}}}), 0u);
}

TEST(ReceiveSinkTest, QueuesAreSeparateOrderStreams) {
  BenchStats stats;
  ReceiveSink sink(stats);
  sink.on_messages(kQueue1, std::vector{stamped(0, 1, 1, 0), stamped(0, 3, 1, 1)});
  sink.on_messages(kQueue0, std::vector{stamped(0, 0, 1, 0), stamped(0, 2, 1, 1)});
  EXPECT_EQ(sink.errors({ProducerLedger{4, {}}}).total(), 0u);
  sink.on_messages(kQueue0, std::vector{stamped(0, 5, 1, 2), stamped(0, 4, 1, 3)});
  EXPECT_EQ(sink.errors({ProducerLedger{6, {}}}).out_of_order, 1u);
}

TEST(ReceiveSinkTest, UnstampedMessagesAreForeign) {
  BenchStats stats;
  ReceiveSink sink(stats);
  client::MessageExt other;
  other.set_body("not from mqbench");
  sink.on_messages(kQueue0, std::vector{other});
  EXPECT_EQ(sink.foreign(), 1u);
  EXPECT_EQ(stats.received.messages.load(), 0u);
}

}  // namespace
}  // namespace mqkit::bench
