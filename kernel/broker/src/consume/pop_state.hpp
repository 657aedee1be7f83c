// What the broker keeps of pop consumption (PopService's ledgers) and how it is written down as
// popState.json, so that it survives a broker restart (docs/storage-format.md §7):
//   {"version":1,"ledgers":[{"group":"g","topic":"T","queueId":0,"nextOffset":12,
//     "inFlight":[{"offset":9,"popTime":1700000000000,"visibleAt":1700000060000,"deliveries":2}]}]}
// Times are milliseconds since the epoch, so they keep their meaning across the restart.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::broker {

inline constexpr std::string_view kPopStateFile = "popState.json";

// One delivery of a popped message that is not acked yet.
struct PopInFlight {
  std::int64_t pop_time = 0;    // names the delivery: receipts carry it, acks must match it
  std::int64_t visible_at = 0;  // when the message may be popped again
  std::int32_t deliveries = 1;  // how many times it has been handed out
  bool operator==(const PopInFlight&) const = default;
};

// What a group popped of one queue.
struct PopLedger {
  std::int64_t next_offset = 0;                   // the first offset never popped
  std::map<std::int64_t, PopInFlight> in_flight;  // by queue offset: popped, not acked
  bool operator==(const PopLedger&) const = default;
};

using PopLedgerKey = std::tuple<std::string, std::string, std::int32_t>;  // group, topic, queue
using PopLedgers = std::map<PopLedgerKey, PopLedger>;

std::string encode_pop_state(const PopLedgers& ledgers);
// InvalidArgument naming what is wrong when `json` is not a popState.json this broker wrote.
plugin::v1::Result<PopLedgers> decode_pop_state(std::string_view json);

}  // namespace mqkit::broker
