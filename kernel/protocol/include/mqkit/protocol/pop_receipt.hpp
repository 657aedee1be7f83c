// RocketMQ 5's pop "extraInfo" (ExtraInfoUtil): what names one delivery of a popped message, and
// what a consumer gives back to acknowledge it or change its invisible time. Brokers answer a pop
// with startOffsetInfo / msgOffsetInfo and clients build each message's extraInfo from them:
//   "<ckQueueOffset> <popTime> <invisibleTime> <reviveQid> <retry> <brokerName> <queueId> <offset>"
// (retry: 0 for the topic itself, 1/2 for RocketMQ's pop retry topics). mqproxy hands it to gRPC
// clients as their receipt handle.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::protocol {

struct PopReceipt {
  std::int64_t ck_queue_offset = 0;  // where the pop began reading the queue
  std::int64_t pop_time = 0;         // ms; with invisible_ms, when the delivery stops being invisible
  std::int64_t invisible_ms = 0;
  std::int32_t revive_qid = 0;
  std::string retry = "0";
  std::string broker_name{};
  std::int32_t queue_id = 0;
  std::int64_t offset = -1;  // the message's queue offset (-1: RocketMQ's 7-field form has none)

  std::int64_t visible_again_at() const noexcept { return pop_time + invisible_ms; }
};

std::string encode_pop_receipt(const PopReceipt& receipt);
// InvalidArgument naming what is missing or not a number.
plugin::v1::Result<PopReceipt> decode_pop_receipt(std::string_view text);

}  // namespace mqkit::protocol
